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
extern void pager_slot_reset(PagerFileSlot *fs);
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

#endif							/* ARTRIE_PAGER_FILE_H */
