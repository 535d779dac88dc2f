// See resolver.cjs: the ES module @nestjs/core, as loaded by nest-esm-globals.mjs.
module.exports = globalThis.__nodesManagerNestCore;
