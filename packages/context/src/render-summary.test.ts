import { describe, expect, it } from 'vitest';
import { DEFAULT_SUMMARY_TEMPLATE } from './defaults';
import { MissingSummaryFieldError, renderSummary, templateFields } from './render-summary';

const fields = {
  task_overview: '1',
  current_state: '2',
  important_discoveries: '3',
  next_steps: '4',
  context_to_preserve: '5',
};

describe('renderSummary', () => {
  it('fills the default template exactly like the reference', () => {
    expect(renderSummary(DEFAULT_SUMMARY_TEMPLATE, fields)).toBe(
      '<system-info>Here is a summary of your previous work\n# Task Overview\n1\n\n# Current State\n2\n\n# Important Discoveries\n3\n\n# Next Steps\n4\n\n# Context to Preserve\n5</system-info>',
    );
  });

  it('treats doubled braces as literal braces and renders non-strings as JSON', () => {
    expect(renderSummary('{{"a": {a}}} {b}', { a: 1, b: ['x'] })).toBe('{"a": 1} ["x"]');
  });

  it('does not substitute inside a value', () => {
    expect(renderSummary('{a}', { a: '{b}', b: 'no' })).toBe('{b}');
  });

  it('throws a named error for a missing field', () => {
    expect(() => renderSummary('{a} {missing}', { a: 'x' })).toThrow(MissingSummaryFieldError);
    expect(() => renderSummary('{a} {missing}', { a: 'x' })).toThrow(/missing/);
  });

  it('lists the fields of a template once, in order', () => {
    expect(templateFields(DEFAULT_SUMMARY_TEMPLATE)).toEqual(Object.keys(fields));
    expect(templateFields('{{not}} {x} {x}')).toEqual(['x']);
  });
});
