// See resolver.cjs: the ES module @nestjs/common, as loaded by nest-esm-globals.mjs.
module.exports = globalThis.__nodesManagerNestCommon;
