// Unix-socket calls whose structures Swift's Glibc module hides (struct ucred and SCM_CREDENTIALS need
// _GNU_SOURCE; SO_PASSPIDFD and SCM_PIDFD are newer than Debian 12's headers): keychaind identifies the sender of
// each message from the credentials the kernel attaches to it.
#ifndef CSYSTEM_SOCKET_H
#define CSYSTEM_SOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// `ck_sender.pidfd` when the kernel said the sender had been reaped before the packet was received (Linux 6.5 to
/// 6.15 attach an error instead of a pidfd then).
#define CK_SENDER_GONE (-2)

/// The sender of one message, as the kernel attached it: pid, uid and gid (-1 when absent), and a pidfd for the
/// sending process (-1 when the kernel attaches none, CK_SENDER_GONE when it said the sender was gone; the
/// receiver closes it).
typedef struct {
    int32_t pid;
    int64_t uid;
    int64_t gid;
    int pidfd;
} ck_sender;

/// Asks the kernel to attach the sender's credentials (SO_PASSCRED) and, where it can, a pidfd (SO_PASSPIDFD) to
/// every message `socket` receives; set on a listening socket, accepted sockets inherit it. Returns 0 when
/// credentials are on (a kernel without SO_PASSPIDFD is not an error), or -1 with errno.
int ck_socket_pass_credentials(int socket);

/// Sends one packet with this process's credentials attached explicitly: its pid, its real uid and its
/// *effective* gid (the kernel attaches the real gid when a sender attaches none). The kernel accepts a gid only
/// if the sender holds it as its real, effective or saved group, so a message that carries a setgid app's group
/// was sent by a process running with that group — not by one that execs the app after sending. Returns the
/// bytes sent, or -1 with errno (MSG_NOSIGNAL: a closed peer is EPIPE, not SIGPIPE). With `attach_credentials` 0
/// the packet goes without them (the daemon's replies: its clients do not ask for the sender's credentials, so
/// reading its pid, uid and group for every reply would be three system calls for nothing).
ssize_t ck_socket_send(int socket, const void *buffer, size_t length, int attach_credentials);

/// Receives one packet into `buffer` (at most `capacity` bytes) with its sender, close-on-exec for any received
/// descriptor. Returns the packet's length (0: the peer closed), or -1 with errno. `*truncated` has bit 1 set when
/// the packet was longer than `capacity` (its rest is lost), bit 2 when its control data was (the sender attached
/// descriptors; the credentials are then left out). Descriptors other than the pidfd are closed.
ssize_t ck_socket_receive(int socket, void *buffer, size_t capacity, int *truncated, ck_sender *sender);

/// Looks at the next packet without taking it (MSG_PEEK) and fills `sender` with its credentials (pid -1 when
/// it carries none, or when descriptors attached to it crowded them out); any descriptor the look brought in is
/// closed. Returns as recv does: > 0 when a packet is there, 0 when the peer closed, -1 with errno.
ssize_t ck_socket_peek_sender(int socket, ck_sender *sender);

/// Turns the kernel's attaching of the sender's pidfd to each received packet (SO_PASSPIDFD) on or off. Returns 0,
/// or -1 with errno (a kernel without it).
int ck_socket_attach_pidfds(int socket, int on);

/// The connected peer's credentials at connect time (SO_PEERCRED). Returns 0 or -1 with errno.
int ck_socket_peer(int socket, int32_t *pid, int64_t *uid, int64_t *gid);

/// Whether the process `pidfd` refers to is still running: 1, 0 (it exited: its pid may be reused), or -1 with
/// errno. Asked with poll (readable once the process exited), which needs no permission over the process.
int ck_pidfd_is_running(int pidfd);

/// A pidfd of the process `pid` (pidfd_open), close-on-exec, or -1 with errno.
int ck_pidfd_open(int32_t pid);

#endif
