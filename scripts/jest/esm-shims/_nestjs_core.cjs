// See ../resolver.cjs: the ES module @nestjs/core as loaded by ../esm-modules.mjs.
module.exports = globalThis.__nodesManagerEsm['@nestjs/core'];
