/**
 * Child of pg-kill-between-group-statements.test.ts: takes the webhooks
 * named on its command line in one event-loop turn (one group, one batch on
 * PostgreSQL) with one more write of their batch, which SIGKILLs this process
 * once `statements` of its own statements were answered: the group's
 * transaction is cut between its statements. Argument: the database URL, the
 * statements, the message ids (JSON).
 */
import { startPgIntake } from '../support/pg-intake.ts';

const [url, statements, ids] = process.argv.slice(2) as [string, string, string];
const intake = await startPgIntake(url);
const messages = JSON.parse(ids) as string[];
messages.forEach((id, i) => void intake.send(`t-${i}`, id).catch(() => {}));
void intake.store.write(
  async (tx) => {
    for (let i = 0; i < Number(statements); i++) await tx.sql.get('select 1');
    process.kill(process.pid, 'SIGKILL');
  },
  { batch: 'webhook' },
);
