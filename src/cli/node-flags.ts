/**
 * The Node.js flags the gateway is started with: by `npm start`, by the
 * image's ENTRYPOINT (Dockerfile), by the benchmarks that start it as a
 * process of its own, and by the `npm run bench*` scripts whose process runs
 * it. Tests keep `npm start`, those scripts and the image in step with this
 * list (test/docs/node-flags.test.ts; test/cli/container-defaults.test.ts
 * runs the image's command as written). GATEWAY_ENV below is the same for
 * the environment.
 *
 * `--max-semi-space-size=8`: V8 sizes its young generation by the machine's
 * memory, up to two semi-spaces of 64 MiB on a large host, and a busy
 * gateway fills them: memory held by garbage that is collected anyway, and
 * held after the work is done (V8 keeps the pages of a young generation it
 * shrinks). At 16 MiB a 10,000-mail backlog peaked at 400 MiB instead of 490
 * MiB at the same speed; at 8 MiB it peaks 13 MiB lower again inside a 256
 * MiB limit, as fast, and the receiver's throughput did not change either
 * time (docs/decisions/young-generation.md; at 4 MiB the receiver lost a
 * quarter). A flag, not a setting: V8 reads it once, when the process starts.
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

/**
 * The environment the gateway is started with, beside its flags: `npm start`
 * and the same `npm run bench*` scripts set it before `node`, the image by its
 * ENV lines, and the e-mail backlog benchmark by its spawn. The same tests
 * keep all but the spawn in step with it.
 *
 * `MALLOC_ARENA_MAX=2`: glibc gives each thread that allocates an arena of its
 * own, up to eight per core, and keeps what is freed in an arena for that
 * arena. Besides the main thread the gateway runs libuv's pool (the log's
 * syncs), the checkpoint thread and V8's compiler and collector threads. With
 * two arenas a 10,000-mail backlog peaked at 337–349 MiB instead of 358–378,
 * as fast, and the receiver's rate did not move (docs/benchmarks.md, "E-mail
 * backlog"). glibc reads it once, when the process
 * starts; other C libraries ignore it.
 */
export const GATEWAY_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
