import { Agent } from '@agentkit/core';
import { ScriptedModel } from '@agentkit/core/testing';
import { describe, expectTypeOf, it } from 'vitest';
import { contextPlugin } from './context-plugin';

describe('the CompressContext tool', () => {
  it("works only where its plugin's context exists: mounted by the plugin, not as an agent tool", () => {
    const context = contextPlugin({ compressionToolEnabled: true });
    const tool = context.tools![0]!;
    expectTypeOf(tool.name).toBeString();
    new Agent({ name: 'a', model: new ScriptedModel([], { contextSize: 1000 }), plugins: [context] });
    // @ts-expect-error the tool needs the context plugin's ctx (it used to fail at run time)
    new Agent({ name: 'a', model: new ScriptedModel([], { contextSize: 1000 }), tools: [tool] });
  });
});
