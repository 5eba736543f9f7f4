import type { Capabilities } from './capabilities';
import { ConfigError } from './errors/config-error';
import { type BoundHandler, sortHandlers } from './hook-driver';
import type { HookName, Plugin } from './plugin';
import type { AnyTool } from './tool';
import { checkTool } from './tool-input';

/**
 * What an agent derives from its plugins alone: checked once per list of plugin instances and shared by
 * every agent built with that list (read-only), so a server that builds an agent per session with the same
 * plugin instances pays for it once.
 */
export interface PluginSet {
  /** The plugins' names, in order. */
  readonly names: readonly string[];
  /** The capabilities the plugins provide. */
  readonly capabilities: Partial<Capabilities>;
  /** The plugins' tools, by name. */
  readonly tools: ReadonlyMap<string, AnyTool>;
  /** Which plugin owns each of those tools. */
  readonly owners: ReadonlyMap<string, Plugin<any>>;
  /** The hooks' handlers, sorted. */
  readonly handlers: ReadonlyMap<HookName, readonly BoundHandler<any>[]>;
}

/** A plugin's fields a set was made from: a plugin whose fields were replaced gets a new set. */
type Fields = Pick<Plugin<any>, 'name' | 'hooks' | 'enforce' | 'tools' | 'provides' | 'dependencies'>;
interface CacheEntry {
  plugins: readonly Plugin<any>[];
  fields: readonly Fields[];
  set: PluginSet;
}
/**
 * The sets of the last few plugin lists: enough for a server that builds every session's agent with the
 * same plugin instances (or a handful of configurations), and bounded — it keeps at most that many lists'
 * plugins alive. No weak map: agents built with fresh plugin instances each time just miss.
 */
const recent: CacheEntry[] = [];
const RECENT = 8;
const NO_PLUGINS: PluginSet = {
  names: [],
  capabilities: {},
  tools: new Map(),
  owners: new Map(),
  handlers: new Map(),
};

const fieldsOf = ({ name, hooks, enforce, tools, provides, dependencies }: Plugin<any>): Fields => ({
  name,
  hooks,
  enforce,
  tools,
  provides,
  dependencies,
});
const sameFields = (f: Fields, p: Plugin<any>) =>
  f.name === p.name &&
  f.hooks === p.hooks &&
  f.enforce === p.enforce &&
  f.tools === p.tools &&
  f.provides === p.provides &&
  f.dependencies === p.dependencies;

function find(plugins: readonly Plugin<any>[]): PluginSet | undefined {
  next: for (const e of recent) {
    if (e.plugins.length !== plugins.length) continue;
    for (let i = 0; i < plugins.length; i++)
      if (e.plugins[i] !== plugins[i] || !sameFields(e.fields[i]!, plugins[i]!)) continue next;
    return e.set;
  }
  return undefined;
}

/**
 * The {@link PluginSet} of `plugins`, from the cache when these plugin instances (in this order, with the
 * same fields) were seen lately. A plugin's hooks, tools and capabilities are read when an agent with it
 * is built: give a plugin others by replacing those fields, not by editing them in place. Throws
 * `ConfigError` for plugins that do not fit together (a name twice, a missing dependency, a capability
 * provided twice, two tools of one name, a bad tool or hook).
 */
export function pluginSet(plugins: readonly Plugin<any>[]): PluginSet {
  if (plugins.length === 0) return NO_PLUGINS;
  for (const plugin of plugins)
    if (typeof plugin !== 'object' || plugin === null)
      throw new ConfigError('Every plugin must be an object.', { field: 'plugins' });
  const cached = find(plugins);
  if (cached) return cached;
  const set = makePluginSet(plugins);
  if (recent.length >= RECENT) recent.shift();
  recent.push({ plugins: [...plugins], fields: plugins.map(fieldsOf), set });
  return set;
}

function makePluginSet(plugins: readonly Plugin<any>[]): PluginSet {
  const names = new Set<string>();
  for (const p of plugins) {
    if (typeof p.name !== 'string' || p.name === '')
      throw new ConfigError('Every plugin needs a non-empty name.', { field: 'plugins' });
    if (names.has(p.name))
      throw new ConfigError(`Plugin '${p.name}' is installed twice.`, { field: 'plugins' });
    names.add(p.name);
  }
  for (const p of plugins)
    for (const dep of p.dependencies ?? [])
      if (!names.has(dep))
        throw new ConfigError(`Plugin '${p.name}' needs plugin '${dep}', which is not installed.`, {
          field: 'plugins',
        });
  const capabilities: Partial<Capabilities> = {};
  for (const p of plugins)
    for (const [key, value] of Object.entries(p.provides ?? {})) {
      if (key in capabilities)
        throw new ConfigError(`Two plugins provide capability '${key}' (the second is '${p.name}').`, {
          field: 'plugins',
        });
      (capabilities as Record<string, unknown>)[key] = value;
    }
  const tools = new Map<string, AnyTool>();
  const owners = new Map<string, Plugin<any>>();
  for (const p of plugins)
    for (const tool of p.tools ?? []) {
      if (tools.has(tool.name))
        throw new ConfigError(`Two tools are named '${tool.name}'.`, { field: 'tools' });
      checkTool(tool);
      tools.set(tool.name, tool);
      owners.set(tool.name, p);
    }
  return { names: [...names], capabilities, tools, owners, handlers: sortHandlers(plugins) };
}
