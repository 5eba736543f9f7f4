import { thrownText } from '../thrown-text';
import { AgentkitError } from './agentkit-error';

/** An interceptor hook of a plugin threw. The reply ends with `finishedReason: 'error'`. */
export class PluginHookError extends AgentkitError {
  /** The plugin's name. */
  readonly plugin: string;
  /** The hook that threw. */
  readonly hook: string;

  constructor(plugin: string, hook: string, cause: unknown) {
    const detail = thrownText(cause);
    super('PLUGIN_HOOK', `Plugin '${plugin}' failed in hook '${hook}': ${detail}`, { cause });
    this.plugin = plugin;
    this.hook = hook;
  }
}
