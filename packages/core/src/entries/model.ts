// `@agentkit/core/model`: what model-adapter authors need beyond the `ChatModel` contract (provider turns,
// error classification and secret-free messages, usage normalisation). Applications do not need it.
export { errorTypeFromStatus, genericMessage } from '../error-info';
export { toProviderTurns, type ProviderTurn, type ProviderTurnOptions } from '../provider-turns';
export { redactSecrets } from '../redact-secrets';
export { normalizeUsage } from '../usage';
