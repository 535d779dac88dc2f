// The CommonJS packages that require ES-module-only packages, and those packages (see resolver.cjs).
exports.CJS_IMPORTERS = ['@nestjs/throttler', '@apidevtools/swagger-parser'];
exports.ESM_ONLY = ['@nestjs/common', '@nestjs/core', '@apidevtools/json-schema-ref-parser'];
