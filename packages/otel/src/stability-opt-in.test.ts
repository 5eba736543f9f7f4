import { describe, expect, it } from 'vitest';
import { latestExperimentalRequested } from './stability-opt-in';

describe('latestExperimentalRequested', () => {
  it('finds gen_ai_latest_experimental in the comma-separated list, spaces allowed', () => {
    expect(latestExperimentalRequested('gen_ai_latest_experimental')).toBe(true);
    expect(latestExperimentalRequested('http, gen_ai_latest_experimental ,database')).toBe(true);
  });

  it('is false for other categories, look-alikes and an unset variable', () => {
    expect(latestExperimentalRequested('http,database/dup')).toBe(false);
    expect(latestExperimentalRequested('gen_ai_latest_experimental_x')).toBe(false);
    expect(latestExperimentalRequested('')).toBe(false);
    expect(latestExperimentalRequested(undefined)).toBe(false);
  });
});
