/** Injection tokens of the process-wide runtime; in a file of their own so any module can import them without cycles. */
export const RUNTIME = Symbol('RUNTIME');
export const METRICS = Symbol('METRICS');
/** The service's {@link JsonLogger}, provided by PlatformModule.forService. */
export const LOGGER = Symbol('LOGGER');
/** The service's {@link Controllers} (runtime/controllers.ts), provided by PlatformModule.forService. */
export const CONTROLLERS = Symbol('CONTROLLERS');
