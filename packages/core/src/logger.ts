/** How bad a log line is, from chattiest to worst. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Where the agent and its plugins report what happens: `debug` (retries, fallbacks, decisions),
 * `info` (notable events), `warn` (something was ignored or degraded), `error` (a reply or a hook
 * failed). `console` is a `Logger`; so are pino's and winston's loggers. `debug` and `info` are optional:
 * a logger without them drops those lines, so plugins call them as `ctx.logger.debug?.(…)`.
 */
export interface Logger {
  debug?(message: string, ...rest: unknown[]): void;
  info?(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

const ORDER: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const noop = (): void => {};

/**
 * A logger that writes to `console` from `level` up (default `'warn'`: debug and info are dropped). The
 * agent's default logger is `consoleLogger()`; pass `consoleLogger('debug')` to see everything.
 */
export function consoleLogger(level: LogLevel = 'warn'): Required<Logger> {
  const from = ORDER.indexOf(level);
  const at = (l: LogLevel) =>
    ORDER.indexOf(l) >= from ? (message: string, ...rest: unknown[]) => console[l](message, ...rest) : noop;
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * Every level of a logger: levels it lacks are silent; no logger is `consoleLogger()`. For packages that
 * take a `logger` option and want to call any level without checking. Call its methods on it.
 */
export function toLogger(option: Partial<Logger> | undefined): Required<Logger> {
  if (!option) return (defaultLogger ??= consoleLogger());
  return new LevelLogger(option);
}

let defaultLogger: Required<Logger> | undefined;

/** Forwards each level to the logger it wraps, when that has it: one small object per agent, no closures. */
class LevelLogger implements Required<Logger> {
  constructor(private readonly target: Partial<Logger>) {}
  debug(message: string, ...rest: unknown[]): void {
    if (typeof this.target.debug === 'function') this.target.debug(message, ...rest);
  }
  info(message: string, ...rest: unknown[]): void {
    if (typeof this.target.info === 'function') this.target.info(message, ...rest);
  }
  warn(message: string, ...rest: unknown[]): void {
    if (typeof this.target.warn === 'function') this.target.warn(message, ...rest);
  }
  error(message: string, ...rest: unknown[]): void {
    if (typeof this.target.error === 'function') this.target.error(message, ...rest);
  }
}
