// See resolver.cjs: loads the ES-module-only packages that CommonJS dependencies require, for their shims.
import * as nestCommon from '@nestjs/common';
import * as nestCore from '@nestjs/core';
import * as refParser from '@apidevtools/json-schema-ref-parser';

globalThis.__nodesManagerEsm = { '@nestjs/common': nestCommon, '@nestjs/core': nestCore, '@apidevtools/json-schema-ref-parser': refParser };
