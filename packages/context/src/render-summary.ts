import { AgentkitError } from '@agentkit/core';

const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The field names a summary template refers to (`{name}` placeholders), in order of appearance. */
export function templateFields(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) if (m[1] && !names.includes(m[1])) names.push(m[1]);
  return names;
}

/** Thrown by {@link renderSummary} when the template names a field the summary does not have. */
export class MissingSummaryFieldError extends AgentkitError {
  /** The missing field. */
  readonly field: string;

  constructor(field: string) {
    super('SUMMARY_FIELD', `The summary has no field '${field}' that the summary template refers to.`);
    this.field = field;
  }
}

/**
 * Fills a summary template with the fields the model produced, like Python's `str.format(**fields)`:
 * `{name}` becomes the field (strings as is, other values as JSON), `{{` and `}}` become single braces.
 * Throws {@link MissingSummaryFieldError} when a referenced field is missing.
 * @example renderSummary('# Goal\n{goal}', { goal: 'ship it' }) // '# Goal\nship it'
 */
export function renderSummary(template: string, fields: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (whole: string, name: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const key = name as string;
    if (!Object.hasOwn(fields, key)) throw new MissingSummaryFieldError(key);
    const value = fields[key];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
