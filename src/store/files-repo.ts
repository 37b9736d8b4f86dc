/**
 * The file store's rows: bytes connectors keep for the platform's agents (mail
 * attachments), served through signed links (src/bridge/file-links.ts). The
 * bytes are a BLOB on SQLite and a bytea on PostgreSQL; both drivers take and
 * answer a Buffer, so `content` round-trips byte for byte (U+0000 included —
 * pg-sql.ts's text rewrite applies to strings, never to a Buffer). `meta`
 * reads a row without its bytes, for checks that need no download.
 */
import type { Sql } from './sql.ts';

export interface FileMeta {
  id: string;
  connector: string;
  filename: string;
  contentType: string;
  size: number;
  /** Hex SHA-256 of the content. */
  sha256: string;
  createdAt: number;
  expiresAt: number;
}

export interface FileRow extends FileMeta {
  content: Buffer;
}

interface Row {
  id: string;
  connector: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  created_at: number;
  expires_at: number;
  content?: Buffer | Uint8Array;
}

const META_COLUMNS = 'id, connector, filename, content_type, size, sha256, created_at, expires_at';

function metaOf(row: Row): FileMeta {
  return {
    id: row.id,
    connector: row.connector,
    filename: row.filename,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

export class FilesRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  async insert(row: FileRow): Promise<void> {
    await this.#db.run(
      `insert into files (id, connector, filename, content_type, size, sha256, content, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [row.id, row.connector, row.filename, row.contentType, row.size, row.sha256, row.content, row.createdAt, row.expiresAt],
    );
  }

  /**
   * A file of `connector` with the same bytes, name and type that lives until `notBefore` or later: the one that
   * lives longest. Found by the (connector, sha256) index; the bytes are not read.
   */
  async findSame(connector: string, sha256: string, filename: string, contentType: string, notBefore: number): Promise<FileMeta | undefined> {
    const row = await this.#db.get<Row>(
      `select ${META_COLUMNS} from files where connector = ? and sha256 = ? and filename = ? and content_type = ? and expires_at >= ?
       order by expires_at desc limit 1`,
      [connector, sha256, filename, contentType, notBefore],
    );
    return row === undefined ? undefined : metaOf(row);
  }

  /** The row with its bytes. */
  async get(id: string): Promise<FileRow | undefined> {
    const row = await this.#db.get<Row>(`select ${META_COLUMNS}, content from files where id = ?`, [id]);
    if (row === undefined) return undefined;
    const content = Buffer.isBuffer(row.content) ? row.content : Buffer.from(row.content ?? []);
    return { ...metaOf(row), content };
  }

  /** The row without its bytes. */
  async meta(id: string): Promise<FileMeta | undefined> {
    const row = await this.#db.get<Row>(`select ${META_COLUMNS} from files where id = ?`, [id]);
    return row === undefined ? undefined : metaOf(row);
  }

  /** Deletes at most `limit` files that expired at or before `now`, oldest expiry first; how many went. */
  async pruneExpired(now: number, limit: number): Promise<number> {
    const { changes } = await this.#db.run(
      `delete from files where id in (select id from files where expires_at <= ? order by expires_at limit ?)`,
      [now, limit],
    );
    return changes;
  }
}
