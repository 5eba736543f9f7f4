import { parseTime } from './time-format';
import { instantOfWallTime, isValidTimeZone, wallTimeAsUtc } from './time-zone';

/**
 * The instant recorded in an earlier injection's `<current-time>`, parsed with `timeFormat`, or `null`
 * when there is none or it does not parse. A time without an offset (`%z`) or a known zone name (`%Z`)
 * is read in the `<timezone>` of the same hint, else in `fallbackTimeZone`, else in UTC.
 */
export function readRecordedTime(hint: string, timeFormat: string, fallbackTimeZone: string): Date | null {
  // Every model call of a session reads the same last injection again: remember the last answer.
  const memo = lastRead;
  if (
    memo &&
    memo.hint === hint &&
    memo.timeFormat === timeFormat &&
    memo.fallbackTimeZone === fallbackTimeZone
  )
    return memo.ms === null ? null : new Date(memo.ms);
  const date = readUncached(hint, timeFormat, fallbackTimeZone);
  lastRead = { hint, timeFormat, fallbackTimeZone, ms: date ? date.getTime() : null };
  return date;
}

let lastRead: { hint: string; timeFormat: string; fallbackTimeZone: string; ms: number | null } | undefined;

function readUncached(hint: string, timeFormat: string, fallbackTimeZone: string): Date | null {
  const time = /<current-time>(.*?)<\/current-time>/.exec(hint)?.[1];
  if (time === undefined) return null;
  const parsed = parseTime(time.trim(), timeFormat);
  if (!parsed) return null;
  if (parsed.offsetMinutes !== undefined)
    return new Date(wallTimeAsUtc(parsed.wall) - parsed.offsetMinutes * 60_000);
  const gmt = parsed.zoneName ? /^(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(parsed.zoneName) : null;
  if (gmt) {
    const minutes = Number(gmt[2]) * 60 + Number(gmt[3] ?? 0);
    return new Date(wallTimeAsUtc(parsed.wall) - (gmt[1] === '-' ? -minutes : minutes) * 60_000);
  }
  const recordedZone = /<timezone>(.*?)<\/timezone>/.exec(hint)?.[1]?.trim();
  const zone = [parsed.zoneName, recordedZone, fallbackTimeZone].find(
    (z) => z !== undefined && isValidTimeZone(z),
  );
  return zone ? instantOfWallTime(parsed.wall, zone) : new Date(wallTimeAsUtc(parsed.wall));
}
