// Bundles the extension into dist/extension.js. `vscode` is provided by the host; `bufferutil` and
// `utf-8-validate` are optional native speed-ups of `ws` that we do not ship (vscode-pitfalls.md 28).
const path = require('node:path');

/** @type {import('webpack').Configuration} */
module.exports = {
  target: 'node',
  mode: 'none',
  entry: { extension: './src/extension.ts' },
  output: {
    path: path.resolve(__dirname, 'dist'),
    filename: '[name].js',
    libraryTarget: 'commonjs2',
    clean: { keep: /\.vsix$/ },
  },
  externals: { vscode: 'commonjs vscode', bufferutil: 'commonjs bufferutil', 'utf-8-validate': 'commonjs utf-8-validate' },
  resolve: { extensions: ['.ts', '.js'], conditionNames: ['require', 'node', 'default'] },
  module: {
    rules: [{ test: /\.ts$/, exclude: /node_modules/, use: [{ loader: 'ts-loader', options: { configFile: 'tsconfig.build.json' } }] }],
  },
  devtool: 'nosources-source-map',
  infrastructureLogging: { level: 'log' },
};
