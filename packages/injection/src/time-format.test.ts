import { describe, expect, it } from 'vitest';
import { checkTimeFormat, formatTime, parseTime, type ZonedWallTime } from './time-format';

const noon: ZonedWallTime = {
  year: 2026,
  month: 7,
  day: 1,
  hour: 12,
  minute: 0,
  second: 0,
  offsetMinutes: 0,
  zoneName: 'UTC',
};

describe('formatTime', () => {
  it('formats the default ISO-like format', () => {
    expect(formatTime(noon, '%Y-%m-%dT%H:%M:%S')).toBe('2026-07-01T12:00:00');
  });

  it('formats names, 12-hour clock, day of year, offset, zone and %%', () => {
    const t: ZonedWallTime = {
      ...noon,
      month: 2,
      day: 3,
      hour: 20,
      minute: 5,
      second: 9,
      offsetMinutes: 480,
      zoneName: 'GMT+8',
    };
    expect(formatTime(t, '%a %A %b %B %d %y %I:%M:%S %p %j %z %Z 100%%')).toBe(
      'Tue Tuesday Feb February 03 26 08:05:09 PM 034 +0800 GMT+8 100%',
    );
    expect(formatTime({ ...noon, hour: 0, offsetMinutes: -330 }, '%I %p %z')).toBe('12 AM -0530');
  });
});

describe('parseTime', () => {
  it('round-trips the default format', () => {
    expect(parseTime('2026-07-01T19:50:00', '%Y-%m-%dT%H:%M:%S')).toEqual({
      wall: { year: 2026, month: 7, day: 1, hour: 19, minute: 50, second: 0 },
    });
  });

  it('parses names case-insensitively, 12-hour clock, two-digit years and offsets', () => {
    expect(parseTime('wed, 01 JUL 26 07:50 pm +08:00', '%a, %d %b %y %I:%M %p %z')).toEqual({
      wall: { year: 2026, month: 7, day: 1, hour: 19, minute: 50, second: 0 },
      offsetMinutes: 480,
    });
    expect(parseTime('1 January 1969 12 AM', '%d %B %Y %I %p')?.wall).toMatchObject({ year: 1969, hour: 0 });
    expect(parseTime('99-01-01', '%y-%m-%d')?.wall.year).toBe(1999);
    expect(parseTime('68-01-01', '%y-%m-%d')?.wall.year).toBe(2068);
    expect(parseTime('2026-07-01 12:00 UTC', '%Y-%m-%d %H:%M %Z')).toMatchObject({ zoneName: 'UTC' });
    expect(parseTime('2026-07-01 12:00 Z', '%Y-%m-%d %H:%M %z')).toMatchObject({ offsetMinutes: 0 });
  });

  it('parses a day of the year', () => {
    expect(parseTime('2024.060', '%Y.%j')?.wall).toMatchObject({ month: 2, day: 29 });
    expect(parseTime('2026.366', '%Y.%j')).toBeNull();
  });

  it('matches runs of whitespace loosely and rejects other mismatches', () => {
    expect(parseTime('2026-07-01   12:00', '%Y-%m-%d %H:%M')).not.toBeNull();
    expect(parseTime('2026-07-01T12:00:00Z', '%Y-%m-%dT%H:%M:%S')).toBeNull();
    expect(parseTime('not a time', '%Y-%m-%dT%H:%M:%S')).toBeNull();
    expect(parseTime('2026-02-30T00:00:00', '%Y-%m-%dT%H:%M:%S')).toBeNull();
    expect(parseTime('2026-07-01T24:00:00', '%Y-%m-%dT%H:%M:%S')).toBeNull();
  });

  it('escapes regular-expression characters of the format', () => {
    expect(parseTime('[2026.07.01]', '[%Y.%m.%d]')).not.toBeNull();
    expect(parseTime('[2026x07x01]', '[%Y.%m.%d]')).toBeNull();
  });
});

describe('checkTimeFormat', () => {
  it('accepts formats with a full date', () => {
    for (const f of ['%Y-%m-%dT%H:%M:%S', '%d %b %Y', '%y%m%d', '%Y.%j %H:%M', '%A, %B %d, %Y %I:%M %p %Z'])
      expect(checkTimeFormat(f)).toBeNull();
  });

  it('rejects time-only or partial dates, unknown directives and a lone %', () => {
    expect(checkTimeFormat('%H:%M:%S')).toMatch(/must contain a date/);
    expect(checkTimeFormat('%m-%d %H:%M')).toMatch(/must contain a date/);
    expect(checkTimeFormat('%Y-%m %H:%M')).toMatch(/must contain a date/);
    expect(checkTimeFormat('%Y-%m-%d %H:%M:%S.%f')).toMatch(/unsupported directive\(s\) '%f'/);
    expect(checkTimeFormat('%Y-%m-%d %')).toMatch(/lone '%'/);
  });
});
