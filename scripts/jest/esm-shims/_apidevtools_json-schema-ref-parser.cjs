// See ../resolver.cjs: the ES module @apidevtools/json-schema-ref-parser as loaded by ../esm-modules.mjs.
module.exports = globalThis.__nodesManagerEsm['@apidevtools/json-schema-ref-parser'];
