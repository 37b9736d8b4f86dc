/**
 * The Node.js flags the gateway is started with: by `npm start`, by the
 * image's ENTRYPOINT (Dockerfile) and by the benchmarks that start it as a
 * process of its own. Tests keep the first two in step with this list
 * (test/docs/node-flags.test.ts; test/cli/container-defaults.test.ts runs
 * the image's command as written).
 *
 * `--max-semi-space-size=16`: V8 sizes its young generation by the machine's
 * memory, up to two semi-spaces of 64 MiB on a large host, and a busy
 * gateway fills them: 128 MiB of its resident memory held by garbage that
 * is collected anyway. At 16 MiB, a 10,000-mail backlog peaked at 400 MiB
 * instead of 490 MiB with the same speed, and the receiver's throughput did
 * not change (docs/benchmarks.md, "The young generation"). A flag, not a
 * setting: V8 reads it once, when the process starts.
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
