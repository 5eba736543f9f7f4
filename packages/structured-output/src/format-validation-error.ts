/** One validation problem: where (path segments from the root) and what. */
export interface OutputIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A JSON path for an issue location: `$` for the root, `$.city`, `$.items[0].name`, `$["odd key"]`.
 */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/**
 * The tool-error text the model sees when its structured output is invalid:
 * `ValidationError: Structured output validation failed with error: {path}: {message}; …`.
 */
export function formatValidationError(issues: readonly OutputIssue[]): string {
  const parts = issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
  return `ValidationError: Structured output validation failed with error: ${parts.join('; ')}`;
}

/**
 * Path segments from a JSON Pointer (`/items/0/name` → `['items', 0, 'name']`), as JSON Schema validators report them.
 * Numeric segments become numbers.
 */
export function pointerToPath(pointer: string): PropertyKey[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}
