import type { DataSource } from 'typeorm';

/**
 * copyFrom — `COPY <table> (<columns>) FROM STDIN (FORMAT csv)` of the given rows over one pg connection: the
 * plain bulk load the sync benchmark compares node-sync's writes against. A minimal pg Submittable (what
 * pg-copy-streams does, without the stream): the whole CSV is sent as one CopyData chunk.
 */
export async function copyFrom(ds: DataSource, table: string, columns: readonly string[], rows: Iterable<readonly unknown[]>): Promise<number> {
  const csv: string[] = [];
  for (const row of rows) csv.push(row.map(csvField).join(','));
  return copyData(ds, `COPY ${table} (${columns.join(', ')}) FROM STDIN (FORMAT csv)`, Buffer.from(csv.join('\n') + '\n', 'utf8'));
}

/** copyTextFrom — `COPY <table> (<columns>) FROM STDIN` of lines already in COPY text format. */
export async function copyTextFrom(ds: DataSource, table: string, columns: readonly string[], lines: Iterable<string>): Promise<number> {
  return copyData(ds, `COPY ${table} (${columns.join(', ')}) FROM STDIN`, Buffer.from([...lines].join(''), 'utf8'));
}

async function copyData(ds: DataSource, statement: string, data: Buffer): Promise<number> {
  const runner = ds.createQueryRunner();
  try {
    const client = (await runner.connect()) as { query(q: unknown): unknown };
    return await new Promise<number>((resolve, reject) => {
      let count = 0;
      let failed: unknown;
      client.query({
        submit(connection: { query(text: string): void }) {
          connection.query(statement);
        },
        handleCopyInResponse(connection: { sendCopyFromChunk(b: Buffer): void; endCopyFrom(): void }) {
          connection.sendCopyFromChunk(data);
          connection.endCopyFrom();
        },
        handleCommandComplete(msg: { text?: string }) {
          count = Number(msg.text?.split(' ')[1] ?? 0);
        },
        handleError(err: unknown) {
          failed = err;
        },
        handleReadyForQuery() {
          if (failed) reject(failed);
          else resolve(count);
        },
      });
    });
  } finally {
    await runner.release();
  }
}

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return `"${s.replace(/"/g, '""')}"`;
}
