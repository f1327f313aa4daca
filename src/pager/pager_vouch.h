/*-------------------------------------------------------------------------
 *
 * pager_vouch.h
 *	  The vouch list (pager_vouch.c): the files that a pass of checkpoints
 *	  found without changes since their last checkpoint, and up to where.
 *
 * Included by checkpoints, the file table, the meta pages' layer (which
 * loads files) and the redo-facing calls (pager_redo.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_VOUCH_H
#define ARTRIE_PAGER_VOUCH_H

#include "pager/pager_internal.h"

extern bool pager_vouch_begin(bool conditional);
extern bool pager_vouch_active(void);
extern bool pager_vouch_listed(const ArtFileId *id, XLogRecPtr since,
							   XLogRecPtr min_redo);
extern void pager_vouch_add(const ArtFileId *id, XLogRecPtr since,
							XLogRecPtr at, int slot);
extern void pager_vouch_commit(void);
extern void pager_vouch_end(void);
extern bool pager_vouch_covers(const char *datadir, uint64 sysid,
							   const ArtFileId *id, XLogRecPtr since,
							   XLogRecPtr min_redo, XLogRecPtr *at);

#endif							/* ARTRIE_PAGER_VOUCH_H */
