import { ConfigError } from '@agentkit/core';
import { DEFAULT_INJECTION_SOURCE, DEFAULT_TEMPLATE, DEFAULT_TOOL_RETRIES_HINT } from './texts';
import { checkTimeFormat } from './time-format';

/** Options of {@link injection}; every field is optional (the defaults are in the README's table). */
export interface InjectionConfig {
  /** Master switch; `false` turns runtime-state injection off entirely. Default `true`. */
  injectRuntimeState?: boolean | undefined;
  /**
   * IANA timezone of the injected time, e.g. `'Asia/Shanghai'`. Default `'UTC'`. An unknown name is
   * printed as configured in `<timezone>` but the time is computed in UTC (with a warning).
   */
  timezone?: string | undefined;
  /**
   * strftime-style format of the injected time; must contain a date so a recorded time parses back to a
   * full timestamp. Supported: `%Y %y %m %d %H %I %M %S %p %j %b %B %a %A %z %Z %%`.
   * Default `'%Y-%m-%dT%H:%M:%S'`.
   */
  timeFormat?: string | undefined;
  /** Hours after the last recorded time before the time is injected again. Default `0.5`. */
  timeInterval?: number | undefined;
  /** Consecutive identical failing calls before the tool-error hint (minimum 3). Default `3`. */
  toolRetriesLimit?: number | undefined;
  /** The tool-error hint; `{tool_name}` and `{count}` are replaced. */
  toolRetriesHint?: string | undefined;
  /**
   * Wraps the fields; must contain `{runtime_state}` (replaced by the `<key>value</key>` lines). Other
   * braces are kept as they are. Keep the fields themselves unchanged: detection relies on them.
   */
  template?: string | undefined;
  /**
   * The `source` of injected hints, used to recognise earlier injections (exact equality). A string, or
   * a `{ label, sublabel? }` object, stored as its JSON text
   * (`'{"label": "System", "sublabel": "Runtime State"}'`, the default).
   */
  injectionSource?: string | InjectionSourceLabel | undefined;
  /**
   * Tools whose calls in the context show the agent knows its tasks. Default: the `tasks` capability's
   * tool names, else `TaskCreate`, `TaskGet`, `TaskList`, `TaskUpdate`.
   */
  taskToolNames?: readonly string[] | undefined;
  /** Custom fields added (as `<key>value</key>`) to every injection; they never trigger one alone. */
  extraFields?: Readonly<Record<string, string>> | undefined;
  /** Whether an injection is also emitted as a `HINT_BLOCK` event. Default `true`. */
  emitHintEvent?: boolean | undefined;
  /**
   * @deprecated Set `contextBufferRatio` on the context configuration (`@agentkit/context`). Still
   * honoured: it overrides the context configuration's value, and a `DeprecationWarning` is emitted once.
   */
  contextBufferRatio?: number | undefined;
  /** The clock (for tests). Default `() => new Date()`. */
  now?: (() => Date) | undefined;
}

/** The object form of {@link InjectionConfig.injectionSource}. */
export interface InjectionSourceLabel {
  label: string;
  sublabel?: string | undefined;
}

/** An {@link InjectionConfig} with every default applied and every field checked. */
export interface ResolvedInjectionConfig {
  injectRuntimeState: boolean;
  timezone: string;
  timeFormat: string;
  timeInterval: number;
  toolRetriesLimit: number;
  toolRetriesHint: string;
  template: string;
  injectionSource: string;
  /** `undefined`: use the `tasks` capability's names, else the defaults. */
  taskToolNames: readonly string[] | undefined;
  extraFields: Readonly<Record<string, string>>;
  emitHintEvent: boolean;
  contextBufferRatio: number | undefined;
  now: () => Date;
}

const KNOWN = new Set([
  'injectRuntimeState',
  'timezone',
  'timeFormat',
  'timeInterval',
  'toolRetriesLimit',
  'toolRetriesHint',
  'template',
  'injectionSource',
  'taskToolNames',
  'extraFields',
  'emitHintEvent',
  'contextBufferRatio',
  'now',
]);

function fail(field: string, message: string): never {
  throw new ConfigError(`Invalid injection configuration: '${field}' ${message}.`, {
    field: `injection.${field}`,
  });
}

/**
 * Applies the defaults and validates. Throws {@link ConfigError} naming the field (`injection.<field>`)
 * when a value is invalid.
 */
export function resolveInjectionConfig(config: InjectionConfig = {}): ResolvedInjectionConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new ConfigError('Invalid injection configuration: expected an object.', { field: 'injection' });
  for (const key of Object.keys(config))
    if (!KNOWN.has(key)) fail(key, `is not an option (known options: ${[...KNOWN].join(', ')})`);

  const bool = (field: keyof InjectionConfig, fallback: boolean): boolean => {
    const v = config[field];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') fail(field, 'must be a boolean');
    return v;
  };
  const str = (field: keyof InjectionConfig, fallback: string): string => {
    const v = config[field];
    if (v === undefined) return fallback;
    if (typeof v !== 'string') fail(field, 'must be a string');
    return v;
  };

  const timezone = str('timezone', 'UTC');
  if (timezone.trim() === '')
    fail('timezone', "must be an IANA timezone name such as 'UTC' or 'Asia/Shanghai'");

  const timeFormat = str('timeFormat', '%Y-%m-%dT%H:%M:%S');
  const formatProblem = checkTimeFormat(timeFormat);
  if (formatProblem) fail('timeFormat', `cannot be used: ${formatProblem}`);

  const timeInterval = config.timeInterval ?? 0.5;
  if (typeof timeInterval !== 'number' || !Number.isFinite(timeInterval) || timeInterval < 0)
    fail('timeInterval', 'must be a number of hours ≥ 0');

  const toolRetriesLimit = config.toolRetriesLimit ?? 3;
  if (typeof toolRetriesLimit !== 'number' || !Number.isInteger(toolRetriesLimit) || toolRetriesLimit < 3)
    fail('toolRetriesLimit', 'must be an integer ≥ 3');

  const template = str('template', DEFAULT_TEMPLATE);
  if (!template.includes('{runtime_state}'))
    fail('template', "must contain the '{runtime_state}' placeholder");

  const taskToolNames = config.taskToolNames;
  if (
    taskToolNames !== undefined &&
    (!Array.isArray(taskToolNames) || !taskToolNames.every((n) => typeof n === 'string'))
  )
    fail('taskToolNames', 'must be an array of tool names');

  const extraFields = config.extraFields ?? {};
  if (typeof extraFields !== 'object' || extraFields === null || Array.isArray(extraFields))
    fail('extraFields', 'must be an object of string values');
  for (const [key, value] of Object.entries(extraFields)) {
    if (!/^[^\s<>/]+$/.test(key)) fail(`extraFields.${key}`, 'must be a tag name without spaces, < > or /');
    if (typeof value !== 'string') fail(`extraFields.${key}`, 'must be a string');
  }

  const contextBufferRatio = config.contextBufferRatio;
  if (
    contextBufferRatio !== undefined &&
    (typeof contextBufferRatio !== 'number' || !(contextBufferRatio >= 0 && contextBufferRatio <= 1))
  )
    fail('contextBufferRatio', 'must be a number between 0 and 1');

  const injectionSource = resolveSource(config.injectionSource);

  const now = config.now ?? (() => new Date());
  if (typeof now !== 'function') fail('now', 'must be a function returning a Date');

  return {
    injectRuntimeState: bool('injectRuntimeState', true),
    timezone,
    timeFormat,
    timeInterval,
    toolRetriesLimit,
    toolRetriesHint: str('toolRetriesHint', DEFAULT_TOOL_RETRIES_HINT),
    template,
    injectionSource,
    taskToolNames: taskToolNames ? [...taskToolNames] : undefined,
    extraFields: { ...extraFields },
    emitHintEvent: bool('emitHintEvent', true),
    contextBufferRatio,
    now,
  };
}

/**
 * The hint `source` string: a string as given; a `{ label, sublabel? }` object as its JSON
 * text, spaced after `:` and `,` (`{"label": "System", "sublabel": "Runtime State"}`).
 */
function resolveSource(value: unknown): string {
  if (value === undefined) return DEFAULT_INJECTION_SOURCE;
  if (typeof value === 'string') return value;
  const label = value as Record<string, unknown> | null;
  if (
    typeof label !== 'object' ||
    label === null ||
    Array.isArray(label) ||
    typeof label.label !== 'string' ||
    !(label.sublabel === undefined || typeof label.sublabel === 'string') ||
    Object.keys(label).some((k) => k !== 'label' && k !== 'sublabel')
  )
    fail('injectionSource', 'must be a string or an object { label: string, sublabel?: string }');
  const entries: Array<[string, string]> = [['label', label.label as string]];
  if (label.sublabel !== undefined) entries.push(['sublabel', label.sublabel as string]);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
}
