// The stand-ins webpack.config.js puts in place of the SDK's zod 3 and Ajv modules: if a change ever
// takes one of those paths in the shipped bundle, it fails at once and says what to do.
import { AjvJsonSchemaValidator, object, zodToJsonSchema } from '../../src/server/sdkPathsNotShipped';

describe('the SDK paths left out of the bundle', () => {
  test.each([
    ['zod 3 object', () => object()],
    ['zod-to-json-schema', () => zodToJsonSchema()],
    ['Ajv validator', () => new AjvJsonSchemaValidator()],
  ])('%s throws an error naming the file and the way out', (_name, reach) => {
    expect(reach).toThrow(
      /left out of native-claude's bundle \(src\/server\/sdkPathsNotShipped\.ts\): use zod 4 schemas, or remove the entry from webpack\.config\.js/,
    );
  });
});
