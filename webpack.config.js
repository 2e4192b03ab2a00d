// Bundles the extension into dist/extension.js (what activation loads: the server and the lock file)
// and dist/session.js (the MCP SDK, zod and the tools, loaded by `import()` on the first connection).
// `vscode` is provided by the host; `bufferutil` and `utf-8-validate` are optional native speed-ups
// of `ws` that we do not ship (docs/vscode-traps.md, trap 28).
const path = require('node:path');
const webpack = require('webpack');

/**
 * Modules the MCP SDK imports only for paths this server never takes (zod 3 schemas, Ajv for
 * elicitation answers): src/server/sdkPathsNotShipped.ts stands in for each, with an error that says
 * so if one is ever reached. Keeps ajv, ajv-formats, fast-uri, zod 3 and zod-to-json-schema out of
 * the session chunk (less to load on the first connection, less memory while the window is open).
 */
const notShipped = path.resolve(__dirname, 'src/server/sdkPathsNotShipped.ts');
const SDK_PATHS_NOT_SHIPPED = [/^zod\/v3$/, /^zod-to-json-schema$/, /[\\/]validation[\\/]ajv-provider\.js$/];

/** @type {import('webpack').Configuration} */
module.exports = {
  target: 'node',
  mode: 'none',
  entry: { extension: './src/extension.ts' },
  output: {
    path: path.resolve(__dirname, 'dist'),
    filename: '[name].js',
    chunkFilename: '[name].js',
    // Chunks are loaded with require() from next to extension.js (target node's default, made explicit).
    chunkLoading: 'require',
    chunkFormat: 'commonjs',
    libraryTarget: 'commonjs2',
    clean: { keep: /\.vsix$/ },
  },
  externals: { vscode: 'commonjs vscode', bufferutil: 'commonjs bufferutil', 'utf-8-validate': 'commonjs utf-8-validate' },
  // ES module builds where a package has them ('import' before 'require'): webpack can then drop what is
  // not used (zod's ESM build leaves its 40 locales out: session.js 903 KiB -> 416 KiB).
  resolve: { extensions: ['.ts', '.js'], conditionNames: ['node', 'import', 'require', 'default'] },
  module: {
    rules: [
      {
        test: /\.ts$/,
        exclude: /node_modules/,
        use: [
          {
            loader: 'ts-loader',
            // ES module output so webpack sees `import()` and splits there (commonjs output would turn it into require()).
            options: { configFile: 'tsconfig.build.json', compilerOptions: { module: 'es2020', moduleResolution: 'node10' } },
          },
        ],
      },
    ],
  },
  plugins: SDK_PATHS_NOT_SHIPPED.map((request) => new webpack.NormalModuleReplacementPlugin(request, notShipped)),
  optimization: {
    // One lazy chunk (named by the imports' webpackChunkName), not per-package vendor chunks.
    splitChunks: false,
    // webpack's own minimizer settings (terser, two compress passes), with every character outside
    // ASCII written as an escape. V8 keeps each script's source in memory for as long as it runs, and
    // one character outside Latin-1 (a "→" in a message) makes it keep the whole source at two bytes
    // a character: 440 KB more heap for extension.js and session.js together.
    minimizeOptions: { javascript: { compress: { passes: 2 }, format: { ascii_only: true } } },
  },
  devtool: 'nosources-source-map',
  infrastructureLogging: { level: 'log' },
};
