import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import type { ErrorBody, ErrorCode } from '@nodes-manager/contracts';
import { CodedError, type JsonLogger } from '@nodes-manager/platform';
import { httpStatusOf } from './error-status.js';

const HTTP_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'VALIDATION_FAILED',
  415: 'VALIDATION_FAILED',
};

/** HttpErrorFilter — every failure leaves the gateway as `{code, message, details?}` with the mapped status. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: JsonLogger) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    let status: number;
    let body: ErrorBody;
    if (err instanceof CodedError) {
      status = httpStatusOf(err.code);
      body = err.toBody();
    } else if (err instanceof HttpException) {
      status = err.getStatus();
      const r = err.getResponse();
      const message = typeof r === 'string' ? r : ((r as { message?: unknown }).message ?? err.message);
      body = { code: HTTP_CODES[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED'), message: Array.isArray(message) ? message.join('; ') : String(message) };
    } else {
      status = 500;
      body = { code: 'INTERNAL', message: 'internal error' };
      this.logger.error('unhandled error', { err: err instanceof Error ? err.message : String(err) });
    }
    res.status(status).json(body);
  }
}
