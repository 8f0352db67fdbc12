// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include "cli/cli.h"

int cmd_dwarf(int argc, char **argv)
{
	return cli_fail("dwarf: not built yet");
}
