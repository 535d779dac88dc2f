// See resolver.cjs: hands @nestjs/common and @nestjs/core to the CommonJS @nestjs/throttler under Jest.
import * as common from '@nestjs/common';
import * as core from '@nestjs/core';

globalThis.__nodesManagerNestCommon = common;
globalThis.__nodesManagerNestCore = core;
