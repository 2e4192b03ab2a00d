// Stands in, in the bundle only (webpack.config.js), for three modules the MCP SDK imports for code
// paths this server never takes: `zod/v3` and `zod-to-json-schema` (schemas written for zod 3; every
// tool here is zod 4) and the SDK's Ajv provider (JSON Schema checks of elicitation answers; this
// server never asks the client for input, and mcpSession.ts passes its own validator). Leaving them
// out keeps ajv, ajv-formats, fast-uri, zod 3 and its converter out of the session chunk: less to
// load on the first connection and less memory for as long as the window is open. Should a future
// change take one of these paths, it fails at once with a message that says what to do.

function notShipped(what: string): never {
  throw new Error(
    `${what} is left out of native-claude's bundle (src/server/sdkPathsNotShipped.ts): ` +
      'use zod 4 schemas, or remove the entry from webpack.config.js if this path is now needed',
  );
}

/** `zod/v3`'s `object`, the only export the SDK's zod-compat uses (for zod 3 shapes). */
export function object(): never {
  return notShipped('zod 3 (an object schema built from a zod 3 shape)');
}

/** `zod-to-json-schema`'s converter, used by the SDK only for zod 3 schemas. */
export function zodToJsonSchema(): never {
  return notShipped('zod-to-json-schema (JSON Schema for a zod 3 schema)');
}

/** The SDK's Ajv provider, which a `Server` builds only when it is given no validator. */
export class AjvJsonSchemaValidator {
  constructor() {
    notShipped('Ajv (the SDK default JSON Schema validator)');
  }
  getValidator(): never {
    return notShipped('Ajv (the SDK default JSON Schema validator)');
  }
}
