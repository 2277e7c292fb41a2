/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Remote reads: the primary does an operation of a layer above for a
 * secondary process (pcpu_proc.h says why by request).
 *
 * Primary: pcpu_proc_publish() starts the thread pcpu-mp and registers
 * the action PCPU_REMOTE_MSG. The action, on EAL's multi-process thread,
 * only queues the request with the peer's address; pcpu-mp takes it,
 * runs the operation's serve() and answers with rte_mp_reply(), data in
 * a memfd. A full queue, or a request once pcpu_proc_unpublish() began,
 * is answered at once (EBUSY, ENOENT).
 *
 * Secondary: one request at a time (EAL refuses two pending requests of
 * the same name to one peer), answered within PCPU_REMOTE_TIMEOUT_S.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>

#include "pcpu_compat.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"
#include "pcpu_proc.h"

#define PCPU_REMOTE_MSG "pcpu_mempool_read"
#define PCPU_REMOTE_VERSION 1u
#define PCPU_REMOTE_TIMEOUT_S 5
#define PCPU_REMOTE_QUEUE 16
/* largest answer read back: a dump of every chunk of a 64 GiB unit */
#define PCPU_REMOTE_MAX_DATA (UINT64_C(64) << 20)

struct remote_req {
	uint32_t version;
	uint32_t op;
	uint8_t arg[PCPU_PROC_OP_ARG_MAX];
};

struct remote_rep {
	int32_t ret;
	int32_t err;
	uint8_t out[PCPU_PROC_OP_ARG_MAX];
};

_Static_assert(sizeof(struct remote_req) <= RTE_MP_MAX_PARAM_LEN &&
	sizeof(struct remote_rep) <= RTE_MP_MAX_PARAM_LEN,
	"a request and its answer fit in one message");

/* A queued request. */
struct remote_item {
	struct remote_req req;
	char name[RTE_MP_MAX_NAME_LEN];
	char peer[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
};

/* The operations, registered by constructors. */
static struct pcpu_proc_op *remote_ops;

/* The primary's side. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int running;        /* pcpu-mp runs */
	int stop;
	pcpu_thread_t thread;
	unsigned int head, len;
	struct remote_item q[PCPU_REMOTE_QUEUE];
} remote = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* Serialises a secondary's requests. */
static pthread_mutex_t remote_client_lock = PTHREAD_MUTEX_INITIALIZER;

void
pcpu_proc_op_register(struct pcpu_proc_op *op)
{
	op->next = remote_ops;
	remote_ops = op;
}

/* ---------------------------------------------------------------------- */
/* Primary. */

static void
remote_reply(const char *name, const char *peer, const struct remote_rep *rep,
		int fd)
{
	struct rte_mp_msg msg;

	memset(&msg, 0, sizeof(msg));
	rte_strscpy(msg.name, name, sizeof(msg.name));
	memcpy(msg.param, rep, sizeof(*rep));
	msg.len_param = sizeof(*rep);
	if (fd >= 0) {
		msg.num_fds = 1;
		msg.fds[0] = fd;
	}
	/* the descriptor is duplicated into the message as it is sent */
	if (rte_mp_reply(&msg, peer) != 0)
		PCPU_LOG(DEBUG, "cannot answer a secondary process: %s",
			rte_strerror(rte_errno));
}

/* Do one request on pcpu-mp. */
static void
remote_serve(const struct remote_item *it)
{
	struct remote_rep rep = { .ret = -1, .err = EPROTO };
	struct pcpu_proc_op *op;
	FILE *f = NULL;
	int fd = -1, answer_fd, err;

	for (op = remote_ops; op != NULL; op = op->next)
		if ((uint32_t)op->id == it->req.op)
			break;
	if (op != NULL) {
		fd = pcpu_fault_memfd_create("pcpu_mempool_answer",
			MFD_CLOEXEC);
		/* the stream closes its own descriptor; the memfd stays
		 * open to be sent */
		answer_fd = fd >= 0 ? dup(fd) : -1;
		if (answer_fd >= 0) {
			f = pcpu_fault_fdopen(answer_fd, "w");
			if (f == NULL) {
				err = errno;
				close(answer_fd);
				errno = err;
			}
		}
		if (f == NULL) {
			/* the secondary gets the error, the line is here */
			PCPU_LOG(ERR, "cannot answer a secondary process's "
				"request %u: no file for the answer: %s",
				it->req.op, strerror(errno));
			rep.err = ENOMEM;
		} else {
			rep.ret = op->serve(it->req.arg, rep.out, f);
			rep.err = rep.ret != 0 ? rte_errno : 0;
			if (fclose(f) != 0 && rep.ret == 0) {
				rep.ret = -1;
				rep.err = ENOMEM;
			}
		}
	}
	/* an empty memfd is not sent */
	if (fd >= 0 && lseek(fd, 0, SEEK_END) == 0) {
		close(fd);
		fd = -1;
	}
	remote_reply(it->name, it->peer, &rep, fd);
	if (fd >= 0)
		close(fd);
}

static pcpu_thread_ret_t
remote_thread(void *arg __rte_unused)
{
	struct remote_item it;

	pthread_mutex_lock(&remote.lock);
	for (;;) {
		while (remote.len == 0 && !remote.stop)
			pthread_cond_wait(&remote.cond, &remote.lock);
		if (remote.len == 0)
			break;
		it = remote.q[remote.head];
		remote.head = (remote.head + 1) % PCPU_REMOTE_QUEUE;
		remote.len--;
		pthread_mutex_unlock(&remote.lock);
		remote_serve(&it);
		pthread_mutex_lock(&remote.lock);
	}
	pthread_mutex_unlock(&remote.lock);
	return PCPU_THREAD_RET_NONE;
}

/* On EAL's multi-process thread: queue, never wait for the library. */
static int
remote_action(const struct rte_mp_msg *msg, const void *peer)
{
	const struct remote_req *req = (const struct remote_req *)msg->param;
	struct remote_rep rep = { .ret = -1 };
	struct remote_item *it;

	pthread_mutex_lock(&remote.lock);
	if (msg->len_param != sizeof(*req) ||
	    req->version != PCPU_REMOTE_VERSION)
		rep.err = EPROTO;
	else if (!remote.running || remote.stop)
		rep.err = ENOENT;
	else if (remote.len == PCPU_REMOTE_QUEUE)
		rep.err = EBUSY;
	if (rep.err == 0) {
		it = &remote.q[(remote.head + remote.len) % PCPU_REMOTE_QUEUE];
		it->req = *req;
		rte_strscpy(it->name, msg->name, sizeof(it->name));
		rte_strscpy(it->peer, peer, sizeof(it->peer));
		remote.len++;
		pthread_cond_signal(&remote.cond);
	}
	pthread_mutex_unlock(&remote.lock);
	if (rep.err != 0)
		remote_reply(msg->name, peer, &rep, -1);
	return 0;
}

int
pcpu_proc_remote_start(void)
{
	int ret;

	pthread_mutex_lock(&remote.lock);
	if (remote.running) {
		pthread_mutex_unlock(&remote.lock);
		return 0;
	}
	remote.stop = 0;
	remote.head = 0;
	remote.len = 0;
	pthread_mutex_unlock(&remote.lock);
	ret = pcpu_ctrl_thread_create(&remote.thread, "pcpu-mp",
		remote_thread, NULL);
	if (ret != 0) {
		PCPU_LOG(ERR, "cannot start the thread that answers secondary "
			"processes: %s", strerror(-ret));
		rte_errno = -ret;
		return -1;
	}
	pthread_mutex_lock(&remote.lock);
	remote.running = 1;
	pthread_mutex_unlock(&remote.lock);
	if (pcpu_fault_rte_mp_action_register(PCPU_REMOTE_MSG,
			remote_action) != 0 &&
	    rte_errno != EEXIST) {
		int err = rte_errno;

		PCPU_LOG(ERR, "cannot answer secondary processes: %s",
			rte_strerror(err));
		pcpu_proc_remote_stop();
		rte_errno = err;
		return -1;
	}
	return 0;
}

void
pcpu_proc_remote_stop(void)
{
	int running;

	pthread_mutex_lock(&remote.lock);
	running = remote.running;
	remote.stop = 1;
	pthread_cond_signal(&remote.cond);
	pthread_mutex_unlock(&remote.lock);
	if (!running)
		return;
	rte_mp_action_unregister(PCPU_REMOTE_MSG);
	/* what is queued is answered first */
	pcpu_thread_join(remote.thread);
	pthread_mutex_lock(&remote.lock);
	remote.running = 0;
	pthread_mutex_unlock(&remote.lock);
}

/* ---------------------------------------------------------------------- */
/* Secondary. */

/* Read the whole of @p fd into a malloc'd, NUL-terminated buffer. 0 or
 * -errno. */
static int
remote_read_fd(int fd, void **data, size_t *len)
{
	struct stat sb;
	ssize_t got;
	char *buf;

	if (fstat(fd, &sb) != 0)
		return -errno;
	if ((uint64_t)sb.st_size > PCPU_REMOTE_MAX_DATA)
		return -EPROTO;
	buf = pcpu_fault_malloc((size_t)sb.st_size + 1);
	if (buf == NULL)
		return -ENOMEM;
	got = pread(fd, buf, (size_t)sb.st_size, 0);
	if (got != (ssize_t)sb.st_size) {
		free(buf);
		return -EIO;
	}
	buf[got] = '\0';
	*data = buf;
	*len = (size_t)got;
	return 0;
}

int
pcpu_proc_call(enum pcpu_proc_op_id id, const void *arg, void *out,
		void **data, size_t *len)
{
	struct remote_req req = {
		.version = PCPU_REMOTE_VERSION,
		.op = (uint32_t)id,
	};
	struct timespec ts = { .tv_sec = PCPU_REMOTE_TIMEOUT_S };
	const struct remote_rep *rep;
	struct rte_mp_reply reply = { 0 };
	struct rte_mp_msg msg, *m;
	int ret, err, i, r;

	if (data != NULL) {
		*data = NULL;
		*len = 0;
	}
	/* no allocator in the primary: no question to ask */
	if (pcpu_proc_attach() != 0)
		return -1;
	if (arg != NULL)
		memcpy(req.arg, arg, sizeof(req.arg));
	memset(&msg, 0, sizeof(msg));
	rte_strscpy(msg.name, PCPU_REMOTE_MSG, sizeof(msg.name));
	memcpy(msg.param, &req, sizeof(req));
	msg.len_param = sizeof(req);
	pthread_mutex_lock(&remote_client_lock);
	r = pcpu_fault_rte_mp_request_sync(&msg, &reply, &ts);
	pthread_mutex_unlock(&remote_client_lock);
	if (r != 0 || reply.nb_received != 1) {
		err = reply.nb_sent == 1 ? ETIMEDOUT : ENOTCONN;
		PCPU_LOG(ERR, "the primary process did not answer: %s",
			strerror(err));
		free(reply.msgs);
		rte_errno = err;
		return -1;
	}
	m = &reply.msgs[0];
	rep = (const struct remote_rep *)m->param;
	if (m->len_param != sizeof(*rep)) {
		ret = -1;
		err = EPROTO;
		PCPU_LOG(ERR, "the primary process's answer is of another "
			"version of the library");
	} else {
		ret = rep->ret;
		err = rep->err;
		if (out != NULL)
			memcpy(out, rep->out, sizeof(rep->out));
		if (ret == 0 && data != NULL && m->num_fds == 1) {
			r = remote_read_fd(m->fds[0], data, len);
			if (r != 0) {
				ret = -1;
				err = -r;
				PCPU_LOG(ERR, "cannot read the primary process's "
					"answer: %s", strerror(err));
			}
		}
	}
	for (i = 0; i < m->num_fds; i++)
		close(m->fds[i]);
	free(reply.msgs);
	if (ret != 0)
		rte_errno = err;
	return ret;
}
