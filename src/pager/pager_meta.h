/*-------------------------------------------------------------------------
 *
 * pager_meta.h
 *	  A file's meta pages (pager_meta.c): filling and stamping them anew for
 *	  a checkpoint, and reading them back when a file is loaded, with the
 *	  checks that decide whether the file may be served.
 *
 * Included by the file table (which loads files), the checkpoint layer
 * (which writes meta pages) and the redo-facing calls (pager_redo.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_META_H
#define ARTRIE_PAGER_META_H

#include "pager/pager_internal.h"

/*
 * What the loader of a file knows of it beyond its meta pages.  With
 * adopt set, the file is being adopted from the cluster pg_upgrade
 * upgraded from (pager_open_adopted); otherwise redo vouches for it
 * (pager_vouch_file): it had no change from its checkpoint that began at
 * since up to upto.
 */
typedef struct PagerWarrant
{
	const PagerAdoptSource *adopt;
	XLogRecPtr	since;
	XLogRecPtr	upto;
} PagerWarrant;

extern void pager_meta_load(PagerFileSlot *fs, const PagerWarrant *warrant);
extern bool pager_meta_read(const char *path, uint8 *buf);
extern int	pager_meta_choose(const ArtFileId *id, const uint8 *page0,
							  const uint8 *page1, PagerMeta meta[2],
							  const uint8 *meta_dir[2], char problem[2][128]);
extern int	pager_meta_servable(const ArtFileId *id, const uint8 *buf,
								PagerMeta *meta);
extern void pager_meta_fill(PagerFileSlot *fs, char *page, int slot,
							uint64 ckpt_no, XLogRecPtr redo_lsn,
							TimeLineID tli, uint32 nlogical, uint32 nphys,
							uint32 nused, const uint32 *user, uint32 ndir,
							const uint32 *dirpages);
extern void pager_meta_restamp(const ArtFileId *id, const char *path,
							   const char *relname, int from_slot,
							   XLogRecPtr redo_lsn);
extern uint64 pager_user_groups(const uint32 *user);
extern void pager_user_words(PagerFileSlot *fs, uint32 *user);

#endif							/* ARTRIE_PAGER_META_H */
