/**
 * `POST /webhooks/<connector>`: the receiver of the platform's signed
 * webhooks. The bridge verifies, dedups and stores the delivery and its job in
 * one transaction; the answer is 200 as soon as that committed. Every refusal
 * (401, 400, 404, 413) has a JSON body and is recorded as a rejected delivery.
 */
import type { FastifyInstance } from 'fastify';
import type { WebhookIntake } from '../bridge/webhook-intake.ts';
import { toErrorBody } from './errors.ts';
import { acceptRawBodies, rawBodyOf } from './raw-body.ts';

export function registerWebhookRoutes(app: FastifyInstance, intake: WebhookIntake, bodyLimit: number): void {
  void app.register(async (scope) => {
    acceptRawBodies(scope, bodyLimit);
    scope.setErrorHandler(async (err, request, reply) => {
      const { status, body } = toErrorBody(err);
      const connector = (request.params as { connector?: string }).connector ?? '';
      // Errors raised before the handler ran (body over the limit, bad length) are recorded here.
      if (status === 413 || (err as { code?: string }).code?.startsWith('FST_ERR_CTP')) {
        try {
          await intake.recordRejected(connector, Buffer.alloc(0), request.headers as Record<string, unknown>, Object.assign(new Error(body.message), { code: body.code }));
        } catch (recordErr) {
          request.log.error({ err: recordErr }, 'recording a refused webhook failed');
        }
      }
      if (status >= 500) request.log.error({ err }, 'webhook failed');
      return reply.status(status).send(body);
    });
    scope.post<{ Params: { connector: string } }>('/webhooks/:connector', async (request, reply) => {
      const result = await intake.accept(request.params.connector, rawBodyOf(request.body), request.headers);
      return reply.status(200).send({ received: true, duplicate: result.duplicate, delivery_id: result.deliveryId });
    });
  });
}
