// libsystemd's sd-bus (Debian's libsystemd-dev): the D-Bus connection, marshalling and object vtables the Secret
// Service is served with, so the project writes no D-Bus marshalling of its own.
#include <systemd/sd-bus.h>
#include <systemd/sd-bus-vtable.h>
