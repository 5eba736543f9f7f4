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
 * Every level of a logger, bound to it: levels it lacks are silent; no logger is `consoleLogger()`. For
 * packages that take a `logger` option and want to call any level without checking.
 */
export function toLogger(option: Partial<Logger> | undefined): Required<Logger> {
  if (!option) return (defaultLogger ??= consoleLogger());
  // One per logger, not per agent: an agent per session often shares the application's logger.
  let bound = boundLoggers.get(option);
  if (!bound) {
    const bind = (l: LogLevel) => {
      const write = option[l];
      return typeof write === 'function' ? write.bind(option) : noop;
    };
    bound = { debug: bind('debug'), info: bind('info'), warn: bind('warn'), error: bind('error') };
    boundLoggers.set(option, bound);
  }
  return bound;
}

let defaultLogger: Required<Logger> | undefined;
const boundLoggers = new WeakMap<Partial<Logger>, Required<Logger>>();
