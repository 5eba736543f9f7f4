import { describe, expect, it } from 'vitest';
import { readRecordedTime } from './recorded-time';

const F = '%Y-%m-%dT%H:%M:%S';
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('readRecordedTime', () => {
  it('reads the time in the timezone recorded with it', () => {
    const hint = '<current-time>2026-07-01T19:50:00</current-time>\n<timezone>Asia/Shanghai</timezone>';
    expect(iso(readRecordedTime(hint, F, 'UTC'))).toBe('2026-07-01T11:50:00.000Z');
  });

  it('falls back to the configured zone, then UTC', () => {
    const hint = '<current-time>2026-07-01T19:50:00</current-time>';
    expect(iso(readRecordedTime(hint, F, 'Asia/Shanghai'))).toBe('2026-07-01T11:50:00.000Z');
    expect(iso(readRecordedTime(`${hint}<timezone>Mars/Olympus_Mons</timezone>`, F, 'UTC'))).toBe(
      '2026-07-01T19:50:00.000Z',
    );
  });

  it('prefers an offset or zone name in the time itself', () => {
    const withOffset = '<current-time>2026-07-01 19:50 +0800</current-time><timezone>UTC</timezone>';
    expect(iso(readRecordedTime(withOffset, '%Y-%m-%d %H:%M %z', 'UTC'))).toBe('2026-07-01T11:50:00.000Z');
    const withName = '<current-time>2026-07-01 19:50 GMT+8</current-time><timezone>UTC</timezone>';
    expect(iso(readRecordedTime(withName, '%Y-%m-%d %H:%M %Z', 'UTC'))).toBe('2026-07-01T11:50:00.000Z');
  });

  it('returns null when there is no time or it does not parse', () => {
    expect(readRecordedTime('<timezone>UTC</timezone>', F, 'UTC')).toBeNull();
    expect(readRecordedTime('<current-time>yesterday</current-time>', F, 'UTC')).toBeNull();
    expect(readRecordedTime('<current-time>  2026-07-01T12:00:00 </current-time>', F, 'UTC')).not.toBeNull();
  });

  it('answers the same hint again from memory, as a new Date each time', () => {
    const hint = '<current-time>2026-07-01T19:50:00</current-time>\n<timezone>Asia/Shanghai</timezone>';
    const first = readRecordedTime(hint, F, 'UTC')!;
    first.setTime(0);
    expect(iso(readRecordedTime(hint, F, 'UTC'))).toBe('2026-07-01T11:50:00.000Z');
    expect(iso(readRecordedTime(hint, F, 'America/New_York'))).toBe('2026-07-01T11:50:00.000Z');
    expect(iso(readRecordedTime(hint, '%Y-%m-%d', 'UTC'))).toBeNull();
    expect(iso(readRecordedTime('<current-time>2026-07-01T19:50:00</current-time>', F, 'Asia/Tokyo'))).toBe(
      '2026-07-01T10:50:00.000Z',
    );
  });
});
