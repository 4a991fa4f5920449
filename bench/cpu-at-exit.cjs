// Preloaded by bench/startup-ab.sh (node -r): appends the process's CPU time (user + system, ms)
// to the file named by CPU_OUT when it exits.
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  require('node:fs').appendFileSync(process.env.CPU_OUT, `${Math.round((user + system) / 1000)}\n`);
});
