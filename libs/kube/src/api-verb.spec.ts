import { describe, expect, it } from '@jest/globals';
import { apiVerb } from './api-verb.js';

describe('apiVerb', () => {
  it.each([
    ['a GET of a named object is get', 'GET', { named: true, watch: false }, 'get'],
    ['a GET of a collection is list', 'GET', { named: false, watch: false }, 'list'],
    ['a GET with watch is watch', 'get', { named: false, watch: true }, 'watch'],
    ['a POST is create', 'POST', { named: false, watch: false }, 'create'],
    ['a PUT is update', 'PUT', { named: true, watch: false }, 'update'],
    ['a PATCH is patch', 'PATCH', { named: true, watch: false }, 'patch'],
    ['a DELETE of a named object is delete', 'DELETE', { named: true, watch: false }, 'delete'],
    ['a DELETE of a collection is deletecollection', 'DELETE', { named: false, watch: false }, 'deletecollection'],
    ['another method is its own name in lower case', 'OPTIONS', { named: false, watch: false }, 'options'],
  ])('%s', (_, method, request, verb) => {
    expect(apiVerb(method, request)).toBe(verb);
  });
});
