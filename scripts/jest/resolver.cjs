// Jest resolver for CommonJS packages that `require()` ES-module-only packages: @nestjs/throttler requires
// @nestjs/common and @nestjs/core (ES modules only since Nest 12), @apidevtools/swagger-parser requires
// @apidevtools/json-schema-ref-parser. Node 20 loads that natively (require of ESM), but Jest's own module loader
// cannot before Node 24.9. Those requires resolve to esm-shim.cjs, which hands over the very ES modules the test
// loaded through esm-modules.mjs (a setup file), so there is one copy of each in the test, as in production.
const path = require('node:path');

const { CJS_IMPORTERS, ESM_ONLY } = require('./esm-only.cjs');
const importers = CJS_IMPORTERS.map((p) => `${path.sep}node_modules${path.sep}${p.split('/').join(path.sep)}${path.sep}`);

module.exports = (request, options) => {
  if (ESM_ONLY.includes(request) && importers.some((i) => `${options.basedir}${path.sep}`.includes(i))) {
    return path.join(__dirname, 'esm-shims', `${request.replace(/[@/]/g, '_')}.cjs`);
  }
  return options.defaultResolver(request, options);
};
