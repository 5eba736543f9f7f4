import { describe, expect, it } from 'vitest';
import { confirmMode } from './confirm-call';

describe('confirmMode', () => {
  it('should ask on a TTY, and approve automatically without one or with AUTO_APPROVE=1', () => {
    expect(confirmMode({}, true)).toEqual({ kind: 'ask' });
    expect(confirmMode({ AUTO_APPROVE: '0' }, true)).toEqual({ kind: 'ask' });
    expect(confirmMode({}, false)).toEqual({ kind: 'auto', reason: 'stdin is not a TTY' });
    expect(confirmMode({ AUTO_APPROVE: '1' }, true)).toEqual({ kind: 'auto', reason: 'AUTO_APPROVE=1' });
  });
});
