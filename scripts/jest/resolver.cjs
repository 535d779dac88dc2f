// Jest resolver: @nestjs/throttler is CommonJS and `require()`s @nestjs/common and @nestjs/core, which are ES modules
// only since Nest 12. Node 20 loads that natively (require of ESM), but Jest's own module loader cannot before Node
// 24.9. Inside @nestjs/throttler those two requires resolve to shims handing over the very ES modules the test loaded
// (nest-esm-globals.mjs, a setup file), so there is one @nestjs/common in the process, as in production.
const path = require('node:path');

const SHIMS = { '@nestjs/common': 'nest-common.cjs', '@nestjs/core': 'nest-core.cjs' };
const THROTTLER = `${path.sep}node_modules${path.sep}@nestjs${path.sep}throttler${path.sep}`;

module.exports = (request, options) => {
  if (SHIMS[request] && options.basedir.includes(THROTTLER)) return path.join(__dirname, SHIMS[request]);
  return options.defaultResolver(request, options);
};
