// See ../resolver.cjs: the ES module @nestjs/common as loaded by ../esm-modules.mjs.
module.exports = globalThis.__nodesManagerEsm['@nestjs/common'];
