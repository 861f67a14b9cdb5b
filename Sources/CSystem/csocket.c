#define _GNU_SOURCE
#include "CSystemSocket.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

int ck_socket_pass_credentials(int socket) {
    int on = 1;
    if (setsockopt(socket, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) return -1;
    // Best effort: older kernels lack it, and the pid alone then identifies the sender.
    (void)setsockopt(socket, SOL_SOCKET, SO_PASSPIDFD, &on, sizeof on);
    return 0;
}

ssize_t ck_socket_send(int socket, const void *buffer, size_t length, int attach_credentials) {
    struct iovec vector = {(void *)buffer, length};
    if (!attach_credentials) {
        struct msghdr plain;
        memset(&plain, 0, sizeof plain);
        plain.msg_iov = &vector;
        plain.msg_iovlen = 1;
        return sendmsg(socket, &plain, MSG_NOSIGNAL);
    }
    union {
        char bytes[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.bytes;
    message.msg_controllen = sizeof control.bytes;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_CREDENTIALS;
    header->cmsg_len = CMSG_LEN(sizeof(struct ucred));
    // The kernel checks each field: our own pid, our real uid, and a group we hold as real, effective or saved.
    struct ucred credentials = {getpid(), getuid(), getegid()};
    memcpy(CMSG_DATA(header), &credentials, sizeof credentials);
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

/// One recvmsg with `flags` into `buffer`, the sender's credentials and pidfd read from the control data (other
/// descriptors closed: the protocol passes none, so they cannot pile up).
static ssize_t receive_packet(
    int socket, void *buffer, size_t capacity, int flags, int *truncated, ck_sender *sender) {
    sender->pid = -1;
    sender->uid = -1;
    sender->gid = -1;
    sender->pidfd = -1;
    *truncated = 0;
    struct iovec vector = {buffer, capacity};
    // Room for the credentials, a pidfd and a few stray descriptors a hostile client might send.
    union {
        char bytes[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int)) + CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.bytes;
    message.msg_controllen = sizeof control.bytes;
    ssize_t count;
    do {
        count = recvmsg(socket, &message, flags | MSG_CMSG_CLOEXEC);
    } while (count < 0 && errno == EINTR);
    if (count < 0) return -1;
    if (message.msg_flags & MSG_TRUNC) *truncated = 1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET) continue;
        if (header->cmsg_type == SCM_CREDENTIALS && header->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
            struct ucred credentials;
            memcpy(&credentials, CMSG_DATA(header), sizeof credentials);
            sender->pid = credentials.pid;
            sender->uid = credentials.uid;
            sender->gid = credentials.gid;
        } else if (header->cmsg_type == SCM_PIDFD && header->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int pidfd;
            memcpy(&pidfd, CMSG_DATA(header), sizeof pidfd);
            if (sender->pidfd >= 0) close(sender->pidfd);
            // Linux 6.5 to 6.15 put -ESRCH here when the sender was reaped before the receipt: said apart from
            // "no pidfd", so that the receiver never opens one by pid (which may name another process by then).
            // Another error (no descriptor free: -EMFILE) is no pidfd, as on a kernel that attaches none.
            sender->pidfd = pidfd >= 0 ? pidfd : (pidfd == -ESRCH ? CK_SENDER_GONE : -1);
        } else if (header->cmsg_type == SCM_RIGHTS) {
            size_t n = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < n; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
                close(fd);
            }
        }
    }
    if (message.msg_flags & MSG_CTRUNC) {
        // Control data was cut (more descriptors than fit): the credentials cannot be trusted to be complete.
        *truncated |= 2;
        sender->pid = -1;
        sender->uid = -1;
        sender->gid = -1;
    }
    return count;
}

ssize_t ck_socket_receive(int socket, void *buffer, size_t capacity, int *truncated, ck_sender *sender) {
    return receive_packet(socket, buffer, capacity, 0, truncated, sender);
}

ssize_t ck_socket_peek_sender(int socket, ck_sender *sender) {
    char first;
    int truncated;
    ssize_t count = receive_packet(socket, &first, 1, MSG_PEEK, &truncated, sender);
    if (sender->pidfd >= 0) {
        close(sender->pidfd);
        sender->pidfd = -1;
    }
    return count;
}

int ck_socket_attach_pidfds(int socket, int on) {
    return setsockopt(socket, SOL_SOCKET, SO_PASSPIDFD, &on, sizeof on);
}

int ck_socket_peer(int socket, int32_t *pid, int64_t *uid, int64_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int ck_pidfd_is_running(int pidfd) {
    // A pidfd is readable once its process has exited. poll needs no permission over the process, where
    // pidfd_send_signal(0) needs the right to signal it, which keychaind (another user, no CAP_KILL) lacks.
    struct pollfd entry = {pidfd, POLLIN, 0};
    int ready;
    do {
        ready = poll(&entry, 1, 0);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return -1;
    if (ready == 0) return 1;
    if (entry.revents & POLLNVAL) {
        errno = EBADF;
        return -1;
    }
    return 0;
}

int ck_pidfd_open(int32_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
