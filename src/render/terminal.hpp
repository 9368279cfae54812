#pragma once
// What the writers ask of the terminal stdout goes to: whether to colour, how wide a table may be.
namespace rightsize::cli {

/// True when NO_COLOR is unset and stdout is a terminal.
bool use_color();
/// Terminal width: $COLUMNS, else the tty width, else 100 (1000 when stdout is not a terminal).
int terminal_width();
/// True when stdout is a terminal.
bool stdout_is_tty();

} // namespace rightsize::cli
