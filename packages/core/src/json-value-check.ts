/**
 * How deeply JSON values agentkit keeps (state, metadata, plugin slots, structured output) may nest.
 * `JSON.stringify` and `structuredClone` overflow the stack a few thousand levels down, so a deeper value
 * could never be saved; this bound keeps every accepted value serialisable with room to spare.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Why `value` is not plain JSON data, or `null` when it is: plain objects (no class instances), arrays,
 * strings, finite numbers, booleans and `null`, no cycles, at most {@link MAX_JSON_DEPTH} levels deep.
 * Object properties whose value is `undefined` are allowed (JSON leaves them out). Iterative, so it never
 * overflows the stack however deep the input; the reason names the path, e.g. `$.a.b[3]`.
 * With `parsed: true` the value is known to come from `JSON.parse` and only its depth is checked.
 */
export function jsonValueProblem(value: unknown, path = '$', parsed = false): string | null {
  // The common case (valid data) walks without building any path; only a failure walks again with paths.
  if (parsed) return nestsTooDeep(value, 0) ? walk(value, true, path) : null;
  return walk(value, parsed, null) === null ? null : walk(value, parsed, path);
}

/**
 * Whether parsed JSON holds a container {@link MAX_JSON_DEPTH} levels down. Recursive (it stops at that
 * depth, far from the stack's limit) and visits containers only: every loaded state goes through it.
 */
function nestsTooDeep(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (depth >= MAX_JSON_DEPTH) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (typeof item === 'object' && item !== null && nestsTooDeep(item, depth + 1)) return true;
    }
    return false;
  }
  for (const key in v) {
    const item = (v as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && nestsTooDeep(item, depth + 1)) return true;
  }
  return false;
}

/** Depth-first walk with an explicit stack; returns the first problem, with its path when `root` is given. */
function walk(value: unknown, parsed: boolean, root: string | null): string | null {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const paths: string[] | null = root === null ? null : [root];
  // Open containers (for cycle detection) and the stack height at which each one is finished.
  const open = new Set<object>();
  const openAt: number[] = [];
  const openObj: object[] = [];
  while (values.length > 0) {
    if (!parsed)
      while (openAt.length > 0 && openAt[openAt.length - 1]! >= values.length) {
        openAt.pop();
        open.delete(openObj.pop()!);
      }
    const v = values.pop();
    const depth = depths.pop()!;
    const p = paths?.pop() ?? '';
    if (typeof v === 'string' || typeof v === 'boolean' || v === null) continue;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) continue;
      return `${p} is ${v}, which JSON cannot hold`;
    }
    if (typeof v !== 'object') return `${p} is a ${typeof v}, not JSON data`;
    if (depth >= MAX_JSON_DEPTH) return `${p} nests deeper than ${MAX_JSON_DEPTH} levels`;
    const isArray = Array.isArray(v);
    if (!parsed) {
      if (open.has(v)) return `${p} refers back to itself (a cycle)`;
      if (!isArray) {
        const proto = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null)
          return `${p} is a ${proto?.constructor?.name ?? 'class'} instance, not a plain JSON object`;
        if (Object.getOwnPropertySymbols(v).length > 0) return `${p} has symbol keys, which JSON cannot hold`;
      }
      open.add(v);
      openAt.push(values.length);
      openObj.push(v);
    }
    if (isArray) {
      const list = v as unknown[];
      for (let i = list.length - 1; i >= 0; i--) {
        const item = list[i];
        if (item === undefined) return `${p}[${i}] is undefined, which JSON cannot hold`;
        values.push(item);
        depths.push(depth + 1);
        paths?.push(`${p}[${i}]`);
      }
    } else {
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined) continue;
        values.push(item);
        depths.push(depth + 1);
        paths?.push(`${p}.${key}`);
      }
    }
  }
  return null;
}
