// `npm run demo`: build, then run the all-in-one process on its embedded defaults (arguments are passed through).
import { spawnSync, spawn } from 'node:child_process';

const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
const child = spawn(process.execPath, ['dist/all-in-one/src/demo.js', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...process.env },
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
