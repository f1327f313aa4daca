/*-------------------------------------------------------------------------
 *
 * pager_file.h
 *	  The file table (pager_file.c): slots of open files, handles, and
 *	  recovery's state of which files may be used.
 *
 * The public half (creating, opening, dropping files, user words, file
 * statistics, recovery) is in pager.h.  Included by the layers that may
 * call the file table: the page store, checkpoints, the copy functions,
 * the sweep and the io worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_FILE_H
#define ARTRIE_PAGER_FILE_H

#include "pager/pager_internal.h"

extern PagerFileSlot *pager_slot(PagerFile *file);
extern int	pager_idle_slots(int *slots, int max);
extern bool pager_close_slot(int slot);
extern void pager_slot_free(int slot);
extern void pager_slots_closed(int closed);
extern void pager_inuse_unmark(PagerFileSlot *fs);
extern void pager_backend_ready(void);
extern XLogRecPtr pager_redo_now(void);
extern XLogRecPtr pager_wal_end(void);
extern bool pager_parse_oid(const char *s, const char **end, Oid *value);
extern PagerFile *pager_open_adopted(const ArtFileId *id,
									 const PagerAdoptSource *source,
									 const char *relname);
extern void pager_restamp_closed_files(void (*unchanged) (const ArtFileId *id,
														  XLogRecPtr since));
extern void pager_meta_restamp(const ArtFileId *id, const char *path,
							   const char *relname, int from_slot,
							   XLogRecPtr redo_lsn);
extern void pager_meta_fill(PagerFileSlot *fs, char *page, int slot,
							uint64 ckpt_no, XLogRecPtr redo_lsn,
							TimeLineID tli, uint32 nlogical, uint32 nphys,
							uint32 nused, const uint32 *user, uint32 nmap,
							const uint32 *mappages);
extern uint64 pager_user_groups(const uint32 *user);
extern void pager_user_words(PagerFileSlot *fs, uint32 *user);

#endif							/* ARTRIE_PAGER_FILE_H */
