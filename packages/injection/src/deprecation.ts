/** The code of the `contextBufferRatio` deprecation warning (`process.on('warning')`, `--no-deprecation`). */
export const CONTEXT_BUFFER_RATIO_DEPRECATION_CODE = 'AGENTKIT_INJECTION_CONTEXT_BUFFER_RATIO';

let warned = false;

/** Emits the `contextBufferRatio` deprecation warning once per process. */
export function warnContextBufferRatioDeprecated(): void {
  if (warned) return;
  warned = true;
  const message =
    "injection({ contextBufferRatio }) is deprecated: set 'contextBufferRatio' on the context configuration " +
    '(@agentkit/context) instead. The injection value still applies and overrides the context value.';
  if (typeof process !== 'undefined' && typeof process.emitWarning === 'function')
    process.emitWarning(message, { type: 'DeprecationWarning', code: CONTEXT_BUFFER_RATIO_DEPRECATION_CODE });
  else console.warn(`DeprecationWarning: ${message}`);
}
