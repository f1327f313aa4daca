/*-------------------------------------------------------------------------
 *
 * pager_ckpt_gate.h
 *	  The checkpoint gate (pager_ckpt_gate.c): its registration, for
 *	  pager_init, and the io worker's word that its pass is done.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_CKPT_GATE_H
#define ARTRIE_PAGER_CKPT_GATE_H

#include "access/xlogdefs.h"

extern void pager_register_ckpt_gate(void);
extern void pager_ckpt_gate_pass_done(XLogRecPtr redo);

#endif							/* ARTRIE_PAGER_CKPT_GATE_H */
