import type { WallTime, ZonedWallTime } from './time-format';

const formatters = new Map<string, Intl.DateTimeFormat>();
const nameFormatters = new Map<string, Intl.DateTimeFormat>();
const validity = new Map<string, boolean>();

/** Whether `timeZone` is an IANA name (or alias) this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  const known = validity.get(timeZone);
  if (known !== undefined) return known;
  let valid = timeZone.trim() !== '';
  if (valid) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone });
    } catch {
      valid = false;
    }
  }
  if (validity.size < 1000) validity.set(timeZone, valid);
  return valid;
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The instant of a wall-clock time read as UTC, in milliseconds. */
export function wallTimeAsUtc(w: WallTime): number {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime();
}

/** The last answer of `wallTimeIn` per time zone: the wall time only changes once a second. */
const lastWallTimes = new Map<string, { second: number; value: ZonedWallTime }>();

/**
 * The wall-clock time of `instant` in `timeZone` (a valid IANA name), with its offset and short name.
 * The last answer per time zone is remembered for the rest of its second (`Intl` formatting is the
 * costly part of an injection).
 */
export function wallTimeIn(instant: Date, timeZone: string): ZonedWallTime {
  const second = Math.floor(instant.getTime() / 1000);
  const hit = lastWallTimes.get(timeZone);
  if (hit && hit.second === second) return { ...hit.value };
  const value = computeWallTimeIn(instant, timeZone);
  if (hit || lastWallTimes.size < 1000) lastWallTimes.set(timeZone, { second, value });
  return { ...value };
}

function computeWallTimeIn(instant: Date, timeZone: string): ZonedWallTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(instant)) parts[p.type] = p.value;
  const yearOfEra = Number(parts.year);
  const wall: WallTime = {
    year: parts.era === 'BC' || parts.era === 'B' ? 1 - yearOfEra : yearOfEra,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
  const whole = instant.getTime() - (((instant.getTime() % 1000) + 1000) % 1000);
  const offsetMinutes = Math.round((wallTimeAsUtc(wall) - whole) / 60_000);
  return { ...wall, offsetMinutes, zoneName: zoneName(instant, timeZone) };
}

function zoneName(instant: Date, timeZone: string): string {
  let f = nameFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'short' });
    nameFormatters.set(timeZone, f);
  }
  return f.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
}

/** The UTC offset of `timeZone` at `instantMs`, in minutes. */
function offsetAt(instantMs: number, timeZone: string): number {
  return wallTimeIn(new Date(instantMs), timeZone).offsetMinutes;
}

/**
 * The instant of a wall-clock time in `timeZone` (a valid IANA name). In a DST gap or overlap the
 * earlier offset wins, as most libraries do.
 */
export function instantOfWallTime(wall: WallTime, timeZone: string): Date {
  const asUtc = wallTimeAsUtc(wall);
  const first = offsetAt(asUtc, timeZone);
  let instant = asUtc - first * 60_000;
  const second = offsetAt(instant, timeZone);
  if (second !== first) instant = asUtc - second * 60_000;
  return new Date(instant);
}
