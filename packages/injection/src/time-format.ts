/**
 * A small strftime/strptime for the directives runtime-state injection supports:
 * `%Y %y %m %d %H %I %M %S %p %j %b %B %a %A %z %Z %%`. Names are English (the C locale).
 */

/** A wall-clock time (no timezone of its own). */
export interface WallTime {
  year: number;
  /** 1–12. */
  month: number;
  /** 1–31. */
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** What {@link formatTime} prints: a wall-clock time, its UTC offset and the zone's short name. */
export interface ZonedWallTime extends WallTime {
  /** Minutes east of UTC (for `%z`). */
  offsetMinutes: number;
  /** Short zone name (for `%Z`), e.g. `UTC`. */
  zoneName: string;
}

/** What {@link parseTime} reads back. */
export interface ParsedTime {
  wall: WallTime;
  /** Set when the format has `%z`. */
  offsetMinutes?: number | undefined;
  /** Set when the format has `%Z`. */
  zoneName?: string | undefined;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const SUPPORTED = new Set([
  'Y',
  'y',
  'm',
  'd',
  'H',
  'I',
  'M',
  'S',
  'p',
  'j',
  'b',
  'B',
  'a',
  'A',
  'z',
  'Z',
  '%',
]);

/** The directives of a format, in order (`%%` included). Throws on a dangling `%`. */
function directives(format: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    const d = format[i + 1];
    if (d === undefined) throw new Error("the format ends with a lone '%'");
    out.push(d);
    i++;
  }
  return out;
}

/**
 * Why `format` cannot be used for recorded times, or `null` when it can: every directive must be
 * supported and the format must contain a full date (a year and a month and day, or a day of the year),
 * so that a recorded time parses back to a complete timestamp.
 */
export function checkTimeFormat(format: string): string | null {
  let found: string[];
  try {
    found = directives(format);
  } catch (error) {
    return (error as Error).message;
  }
  const unsupported = found.filter((d) => !SUPPORTED.has(d));
  if (unsupported.length > 0)
    return `unsupported directive(s) ${unsupported.map((d) => `'%${d}'`).join(', ')} (supported: ${[...SUPPORTED].map((d) => `%${d}`).join(' ')})`;
  const has = (...ds: string[]) => ds.some((d) => found.includes(d));
  const date = has('Y', 'y') && ((has('m', 'b', 'B') && has('d')) || has('j'));
  if (!date) return 'it must contain a date (a year with %Y or %y, and %m/%b/%B with %d, or %j)';
  return null;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Days since 1970-01-01 of a civil date (proleptic Gregorian). */
function daysFromCivil(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.round(d.getTime() / 86_400_000);
}

/** Day of the year, 1–366. */
function dayOfYear(w: WallTime): number {
  return daysFromCivil(w.year, w.month, w.day) - daysFromCivil(w.year, 1, 1) + 1;
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}

/** Formats a zoned wall-clock time like Python's `strftime`. */
export function formatTime(time: ZonedWallTime, format: string): string {
  return format.replace(/%(.)/gs, (whole, d: string) => {
    switch (d) {
      case 'Y':
        return pad(time.year, 4);
      case 'y':
        return pad(((time.year % 100) + 100) % 100);
      case 'm':
        return pad(time.month);
      case 'd':
        return pad(time.day);
      case 'H':
        return pad(time.hour);
      case 'I':
        return pad(time.hour % 12 === 0 ? 12 : time.hour % 12);
      case 'M':
        return pad(time.minute);
      case 'S':
        return pad(time.second);
      case 'p':
        return time.hour < 12 ? 'AM' : 'PM';
      case 'j':
        return pad(dayOfYear(time), 3);
      case 'b':
        return MONTHS[time.month - 1]!.slice(0, 3);
      case 'B':
        return MONTHS[time.month - 1]!;
      case 'a':
        return WEEKDAYS[(((daysFromCivil(time.year, time.month, time.day) + 4) % 7) + 7) % 7]!.slice(0, 3);
      case 'A':
        return WEEKDAYS[(((daysFromCivil(time.year, time.month, time.day) + 4) % 7) + 7) % 7]!;
      case 'z':
        return formatOffset(time.offsetMinutes);
      case 'Z':
        return time.zoneName;
      case '%':
        return '%';
      default:
        return whole;
    }
  });
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const names = (list: string[], short: boolean) =>
  `(${list.map((n) => (short ? n.slice(0, 3) : n)).join('|')})`;

const PATTERNS: Record<string, string> = {
  Y: '(\\d{4})',
  y: '(\\d{2})',
  m: '(1[0-2]|0[1-9]|[1-9])',
  d: '(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])',
  H: '(2[0-3]|[01]\\d|\\d)',
  I: '(1[0-2]|0[1-9]|[1-9])',
  M: '([0-5]\\d|\\d)',
  S: '(6[01]|[0-5]\\d|\\d)',
  p: '(am|pm)',
  j: '(36[0-6]|3[0-5]\\d|[12]\\d\\d|0[1-9]\\d|00[1-9]|[1-9]\\d|0[1-9]|[1-9])',
  b: names(MONTHS, true),
  B: names(MONTHS, false),
  a: names(WEEKDAYS, true),
  A: names(WEEKDAYS, false),
  z: '(Z|[+-]\\d\\d:?[0-5]\\d)',
  Z: '([A-Za-z][A-Za-z0-9_+\\-/:]*)',
};

const compiled = new Map<string, { regex: RegExp; order: string[] }>();

function compile(format: string): { regex: RegExp; order: string[] } {
  let hit = compiled.get(format);
  if (hit) return hit;
  let source = '';
  const order: string[] = [];
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '%') {
      const d = format[++i]!;
      if (d === '%') source += '%';
      else {
        const pattern = PATTERNS[d];
        if (pattern === undefined) throw new Error(`Unsupported time format directive '%${d}'.`);
        source += pattern;
        order.push(d);
      }
    } else if (/\s/.test(c)) {
      while (i + 1 < format.length && /\s/.test(format[i + 1]!)) i++;
      source += '\\s+';
    } else source += escapeRegExp(c);
  }
  hit = { regex: new RegExp(`^${source}$`, 'i'), order };
  compiled.set(format, hit);
  return hit;
}

const monthIndex = (name: string) =>
  MONTHS.findIndex((m) => m.toLowerCase().startsWith(name.toLowerCase())) + 1;

/**
 * Parses `text` with `format` like Python's `strptime` (fields missing from the format default to
 * 1900-01-01 00:00:00). Returns `null` when the text does not match or names an impossible date.
 * The format must pass {@link checkTimeFormat}.
 */
export function parseTime(text: string, format: string): ParsedTime | null {
  const { regex, order } = compile(format);
  const match = regex.exec(text);
  if (!match) return null;
  const wall: WallTime = { year: 1900, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
  let hour12: number | undefined;
  let pm: boolean | undefined;
  let yday: number | undefined;
  let hasMonthDay = false;
  const result: ParsedTime = { wall };
  order.forEach((d, i) => {
    const v = match[i + 1]!;
    switch (d) {
      case 'Y':
        wall.year = Number(v);
        break;
      case 'y': {
        const n = Number(v);
        wall.year = n <= 68 ? 2000 + n : 1900 + n;
        break;
      }
      case 'm':
        wall.month = Number(v);
        hasMonthDay = true;
        break;
      case 'b':
      case 'B':
        wall.month = monthIndex(v);
        hasMonthDay = true;
        break;
      case 'd':
        wall.day = Number(v.trim());
        hasMonthDay = true;
        break;
      case 'H':
        wall.hour = Number(v);
        break;
      case 'I':
        hour12 = Number(v);
        break;
      case 'p':
        pm = v.toLowerCase() === 'pm';
        break;
      case 'M':
        wall.minute = Number(v);
        break;
      case 'S':
        wall.second = Math.min(Number(v), 59);
        break;
      case 'j':
        yday = Number(v);
        break;
      case 'z': {
        if (v.toUpperCase() === 'Z') result.offsetMinutes = 0;
        else {
          const digits = v.replace(':', '');
          const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
          result.offsetMinutes = digits[0] === '-' ? -minutes : minutes;
        }
        break;
      }
      case 'Z':
        result.zoneName = v;
        break;
    }
  });
  if (hour12 !== undefined) wall.hour = (hour12 % 12) + (pm ? 12 : 0);
  if (yday !== undefined && !hasMonthDay) {
    const d = new Date(0);
    d.setUTCFullYear(wall.year, 0, yday);
    if (d.getUTCFullYear() !== wall.year) return null;
    wall.month = d.getUTCMonth() + 1;
    wall.day = d.getUTCDate();
  }
  const check = new Date(0);
  check.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  if (check.getUTCMonth() !== wall.month - 1 || check.getUTCDate() !== wall.day) return null;
  return result;
}
