// Preloaded by bench/cli.mjs (`node --require`): writes the process's CPU time
// (user + system, every thread, in ms) to fd 3 as it exits. CPU time, unlike wall
// time, barely moves with the load other processes put on the machine.
process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  process.getBuiltinModule("node:fs").writeSync(3, String((user + system) / 1000));
});
