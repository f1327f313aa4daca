/*-------------------------------------------------------------------------
 *
 * pager_checkpoint.h
 *	  The checkpoint layer (pager_checkpoint.c): copy-on-write checkpoints,
 *	  closing idle files, and the calls of the WAL layer's hooks.
 *
 * The public half (pager_flush_file, pager_checkpoint) is in pager.h.
 * Included by pager.c, which registers the hooks, by the io worker, and
 * by a build, which reads back the pages of its image it kept no copy of
 * (pager_image_read).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_CHECKPOINT_H
#define ARTRIE_PAGER_CHECKPOINT_H

#include "pager/pager_internal.h"

/* The WAL layer's hooks (pager_set_hooks). */
extern PagerHooks pager_hooks;

extern void pager_connections_allowed(void);
extern void pager_image_read(PagerFileSlot *fs, IoPage *pages,
							 const uint32 *pagenos, const uint32 *stamps,
							 const int *slot, int n, char *bodies);
extern void pager_close_idle_files(void);
extern void pager_checkpoint_final(bool complete);
extern bool pager_checkpoint_pending(void);
extern void pager_checkpoint_retry(void);

#endif							/* ARTRIE_PAGER_CHECKPOINT_H */
