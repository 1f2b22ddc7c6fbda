// A command whose options are declared with its code: a stand-in that loads the module only when the command
// runs, then parses the command's own arguments (`--help` included) with the options the module declares. The
// description is the stand-in's, so `audience --help` and `audience <command> --help` say the same.
import { Command } from "commander";

export type Register = (program: Command) => void;

export function lazyCommand(name: string, description: string, load: () => Promise<Register>): (program: Command) => void {
  return (program) => {
    program
      .command(name)
      .description(description)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async () => {
        const real = new Command(program.name()).copyInheritedSettings(program);
        (await load())(real);
        real.commands.find((c) => c.name() === name)?.description(description);
        const argv = process.argv.slice(2);
        await real.parseAsync(argv.slice(argv.indexOf(name)), { from: "user" });
      });
  };
}
