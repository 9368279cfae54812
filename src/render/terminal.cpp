#include "render/terminal.hpp"

#include <cstdlib>

#include <sys/ioctl.h>
#include <unistd.h>

namespace rightsize::cli {

bool stdout_is_tty() {
  return isatty(STDOUT_FILENO) != 0;
}

bool use_color() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  return stdout_is_tty();
}

int terminal_width() {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    const int w = std::atoi(columns);
    if (w >= 40 && w <= 1000) return w;
  }
  winsize ws{};
  if (!stdout_is_tty()) return 1000; // a pipe or file: never cut a cell (issue 15 item 12)
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  return 100;
}

} // namespace rightsize::cli
