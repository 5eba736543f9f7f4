import { describe, expect, it } from 'vitest';
import { instantOfWallTime, isValidTimeZone, wallTimeIn } from './time-zone';

describe('time zones', () => {
  it('recognises IANA names', () => {
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Asia/Shanghai')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });

  it('gives the wall-clock time and offset of an instant', () => {
    const instant = new Date('2026-07-01T12:00:00.750Z');
    expect(wallTimeIn(instant, 'UTC')).toMatchObject({
      year: 2026,
      month: 7,
      day: 1,
      hour: 12,
      second: 0,
      offsetMinutes: 0,
    });
    expect(wallTimeIn(instant, 'Asia/Shanghai')).toMatchObject({ hour: 20, offsetMinutes: 480 });
    expect(wallTimeIn(instant, 'America/New_York')).toMatchObject({ hour: 8, offsetMinutes: -240 });
    expect(wallTimeIn(new Date('2026-01-01T03:00:00Z'), 'America/New_York')).toMatchObject({
      year: 2025,
      month: 12,
      day: 31,
      hour: 22,
      offsetMinutes: -300,
    });
  });

  it('turns a wall-clock time in a zone back into the instant', () => {
    const wall = { year: 2026, month: 7, day: 1, hour: 19, minute: 50, second: 0 };
    expect(instantOfWallTime(wall, 'Asia/Shanghai').toISOString()).toBe('2026-07-01T11:50:00.000Z');
    expect(instantOfWallTime(wall, 'UTC').toISOString()).toBe('2026-07-01T19:50:00.000Z');
    expect(instantOfWallTime(wall, 'Europe/Berlin').toISOString()).toBe('2026-07-01T17:50:00.000Z');
    const winter = { year: 2026, month: 1, day: 15, hour: 9, minute: 0, second: 0 };
    expect(instantOfWallTime(winter, 'Europe/Berlin').toISOString()).toBe('2026-01-15T08:00:00.000Z');
  });

  it('answers repeated calls within a second from memory, with the same result as a fresh computation', () => {
    const base = Date.parse('2026-03-29T00:59:58.000Z'); // Europe/Berlin switches to CEST at 01:00 UTC
    const zones = ['Europe/Berlin', 'UTC', 'Asia/Shanghai', 'America/New_York'];
    const fresh = (ms: number, zone: string) => {
      const f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        timeZoneName: 'short',
      });
      const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
      return {
        year: Number(p.year),
        month: Number(p.month),
        day: Number(p.day),
        hour: Number(p.hour),
        minute: Number(p.minute),
        second: Number(p.second),
        zoneName: p.timeZoneName,
      };
    };
    for (let ms = base; ms < base + 4000; ms += 250)
      for (const zone of zones) {
        const got = wallTimeIn(new Date(ms), zone);
        expect(got, `${new Date(ms).toISOString()} ${zone}`).toMatchObject(fresh(ms, zone));
        got.hour = -1; // a caller changing its copy does not change the next answer
      }
    expect(wallTimeIn(new Date(base + 2000), 'Europe/Berlin')).toMatchObject({ hour: 3, offsetMinutes: 120 });
    expect(wallTimeIn(new Date(base + 1999), 'Europe/Berlin')).toMatchObject({ hour: 1, offsetMinutes: 60 });
  });
});
